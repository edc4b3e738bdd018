package saturation

// Modes of a Summary, as the load generator names them.
const (
	Open   = "open"
	Closed = "closed"
)

// Summary is what Judge reads about one repetition: the load as the generator saw it
// and the queues the runner saw outside it. It is meant to be stored in results.json
// as it is, so that a report judges again, with the rules of its own version, from the
// same numbers the run judged. Times are in seconds.
type Summary struct {
	Mode        string  `json:"mode"` // Open or Closed
	Connections int     `json:"connections"`
	Offered     float64 `json:"offered_qps,omitempty"` // open loop: requests per second asked for
	Window      float64 `json:"window_seconds"`        // the measured window the timeline slices
	// Elapsed is the window and the wait for the requests in flight at its end.
	Elapsed float64 `json:"elapsed_seconds"`
	// Open loop: sends the schedule asked for within the window, those never sent, and
	// the late ones by whose fault (the load generator's Result says how each is counted).
	Scheduled     int64 `json:"scheduled,omitempty"`
	Unsent        int64 `json:"unsent,omitempty"`
	LateTarget    int64 `json:"late_target,omitempty"`
	LateGenerator int64 `json:"late_generator,omitempty"`
	Completed     int64 `json:"completed"` // requests that finished, errors included
	// LateAfter is how late a send must be to count as late (loadgen.LateAfter when
	// the run was made), in seconds.
	LateAfter float64 `json:"late_after"`
	// GeneratorBusy is the generator's CPU over elapsed time × the cores it could use.
	GeneratorBusy float64 `json:"generator_busy"`
	P99           float64 `json:"p99"` // latency from the intended send time
	// Timeline slices the window by completion time (the load generator's TimelineBuckets);
	// Tail is what finished after it.
	Timeline []Bucket `json:"timeline,omitempty"`
	Tail     Bucket   `json:"tail"`
	Causes   Causes   `json:"causes"`
}

// Bucket is one slice of the timeline (the load generator's Bucket, in seconds).
type Bucket struct {
	Completed int64   `json:"completed"`
	Responses int64   `json:"responses"`    // whole responses, what the means are over
	Latency   float64 `json:"latency_mean"` // from the intended send time
	Service   float64 `json:"service_mean"` // from the actual send
	Late      int64   `json:"late"`
}

// Causes are the queues outside the generator that the runner can see; the load
// generator cannot. Each has a flag that says it was measured, so that a 0 is a
// measurement and not a gap.
type Causes struct {
	// PoolWaitSeconds is the total time requests waited for a database connection from
	// the target's pool during the repetition: database/sql's DBStats.WaitDuration,
	// end minus start.
	PoolCounted     bool    `json:"pool_counted,omitempty"`
	PoolWaitSeconds float64 `json:"pool_wait_seconds,omitempty"`
	// QueueMean is the mean number of requests waiting before the server's processes
	// took them up, sampled through the repetition: the server's backlog, such as
	// php-fpm's "listen queue" (its status page) or a worker server's accept queue.
	// QueueName says which, in words ("php-fpm listen queue").
	QueueSampled bool    `json:"queue_sampled,omitempty"`
	QueueName    string  `json:"queue_name,omitempty"`
	QueueMean    float64 `json:"queue_mean,omitempty"`
}
