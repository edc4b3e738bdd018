package server

import (
	"database/sql"
	"net/http"
	"net/http/pprof"
)

// Admin serves GET /debug/dbstats (database/sql's DBStats as JSON, WaitDuration in
// nanoseconds) and net/http/pprof under /debug/pprof/. stats is nil for the hello layer,
// which has no pool: then /debug/dbstats is a 404 that says so.
func Admin(stats func() sql.DBStats) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/debug/dbstats", getOnly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if stats == nil {
			WriteError(w, http.StatusNotFound, "this layer uses no database, so it has no DBStats")
			return
		}
		WriteJSON(w, http.StatusOK, stats())
	})))
	// Registered by hand: importing pprof for its side effect would put it on
	// http.DefaultServeMux, which nothing here serves.
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
