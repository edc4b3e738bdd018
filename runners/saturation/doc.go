// Package saturation decides whether a measured point's latency is service time or
// queueing, from causes the suite can see rather than a fixed p99 threshold. It is
// pure logic: Judge reads a Summary of one repetition (FromResult makes one from a
// loadgen.Result, and the runner adds the queues it measured) and returns a Verdict,
// a state and a reason in words with the numbers that decided it. A Summary is meant
// to be stored in results.json, so that a report judges again from the same numbers.
//
// Open loop (a fixed rate, latency from the intended send time):
//
//   - generator behind: more than LateShareMax (10%) of the sends went out more than
//     loadgen.LateAfter (1 ms) late although their connection was free, and more of
//     them than late for the target's sake; or the generator kept GeneratorBusyMax
//     (90%) of its cores busy. Said instead of anything about the target: it is a
//     finding about the generator.
//   - past capacity: the throughput in the steady part of the window (the timeline's
//     slices after the first) falls short of the rate by more than Tolerance (3%, and
//     MinShortfall requests); or the latency from the intended send keeps rising
//     across the window's slices (Theil–Sen slope with its 95% interval above 0, and a
//     rise across the window of at least the starting latency and BacklogMinRise); or
//     more than LateShareMax of the sends waited for the answer before them on their
//     connection. Last resort: the p99 above P99Ceiling (1 s).
//
// Closed loop (C clients, each sending when its answer is in):
//
//   - generator behind: the generator kept GeneratorBusyMax of its cores busy.
//   - queueing (closed loop): more than WaitShareMax (half) of the requests' time was
//     spent waiting for a database connection from the pool (database/sql's
//     WaitDuration over the requests' total time) or in the server's queue (its mean
//     length, such as php-fpm's listen queue, over the mean number of requests in
//     flight: Little's law on both). Last resort, where no queue explains it: the
//     p99 above P99Ceiling.
//
// Every threshold is a constant in judge.go with its reason; README.md has the table.
package saturation
