// Command tenuo-verifier is an example tool server that checks each call
// offline against Tenuo credentials a PACT board exported. It trusts only
// the board's published keys, refetches the board's signed revocation
// list every 20 seconds (-refresh), refuses every call when that list is more than
// 60 seconds old (fail closed), and accepts each signed call once. See
// README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "tenuo-verifier:", err)
		os.Exit(1)
	}
}

// run parses flags, starts the refresh loop and serves until SIGINT or
// SIGTERM.
func run(argv []string) error {
	fs := flag.NewFlagSet("tenuo-verifier", flag.ContinueOnError)
	board := fs.String("board", os.Getenv("PACT_BOARD_URL"), "the board's base URL (default $PACT_BOARD_URL)")
	addr := fs.String("addr", "127.0.0.1:8787", "address to serve POST /call on")
	refresh := fs.Duration("refresh", defaultRefreshInterval, "how often to refetch the keys and the revocation list (at most 60s)")
	if err := fs.Parse(argv); err != nil {
		return err
	}
	if *refresh <= 0 || *refresh > maxListAge {
		return fmt.Errorf("-refresh must be more than 0 and at most %s (the list must be refetched at least that often)", maxListAge)
	}
	if *board == "" {
		return fmt.Errorf("-board (or PACT_BOARD_URL) is required")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	v := newVerifier(*board, &http.Client{Timeout: 10 * time.Second}, time.Now)
	v.refreshEvery = *refresh
	go v.run(ctx, log.Printf)
	srv := &http.Server{Addr: *addr, Handler: v, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	log.Printf("tenuo-verifier: serving POST /call on %s for board %s", *addr, *board)
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		return err
	}
	return nil
}
