// Package profile reads CPU and allocation profiles, folds their stacks into the
// components of the app tier a user recognises (HTTP server, query building, ORM
// hydration, driver, runtime and GC; framework bootstrap, connection set-up, PDO …),
// and draws them as self-contained flame graphs.
//
// # Model
//
// A Profile is a list of Stacks, frames root first, each with an integer weight in the
// profile's unit: nanoseconds of CPU, bytes or objects allocated, or Excimer samples.
// ReadPprof reads a Go pprof protobuf for one sample type (CPU, AllocSpace,
// AllocObjects …); ReadCollapsed reads collapsed stacks ("a;b;c 12" lines, what
// Excimer's ExcimerLog::formatCollapsed writes); WriteCollapsed writes them.
//
// # Components
//
// One table (table.go) maps frame-name patterns to components, per language; nothing
// else in the suite knows which library is which. Fold sums a profile by component;
// Folded.Per divides by the requests served (CPU ns per request); Folded.Check says
// whether too much fell into Other and which frames the table is missing.
//
// The attribution rule, in three sentences:
//
//  1. Each frame takes the table row whose pattern matches it most specifically; a row
//     is Own, Subtree or Pass, and a frame that no row matches counts as Pass.
//  2. A sample belongs to the component of its innermost Subtree frame if it has one,
//     otherwise to that of its innermost Own frame.
//  3. A sample with neither belongs to Other.
//
// So a library's own time, and the helpers it calls (reflect, strconv, bufio, PHP
// closures, an unknown dependency), count as that library; runtime and syscall frames,
// being Own rows themselves, keep their time even when the ORM or the driver called
// them; and class loading or connecting (Subtree rows) claim everything they cause,
// since "a new connection per request costs this much" is the answer wanted there.
// In a flame graph a frame is coloured by the component its own time goes to, which is
// the rule applied to the stack from the root down to that frame.
//
// # Files and viewers
//
//   - name.pb.gz, Go's pprof protobuf as net/http/pprof served it (the caller keeps it
//     as is), or PHP's stacks written by WritePprof: go tool pprof -top name.pb.gz,
//     go tool pprof -http=: name.pb.gz, or speedscope (it imports pprof).
//   - name.collapsed, collapsed stacks from WriteCollapsed: speedscope (open the file),
//     flamegraph.pl name.collapsed > name.svg, inferno-flamegraph.
//   - name.svg, from WriteFlameGraph: any browser, offline; hover a frame for its name,
//     component, weight and share.
package profile
