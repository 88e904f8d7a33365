package inspector_test

import (
	"context"
	"log"
	"os"
	"time"

	"github.com/heapscope/heapscope/capture/inspector"
	"github.com/heapscope/heapscope/heapsnapshot"
)

// Take a snapshot of a running Node process by pid and read it.
func ExampleSnapshot() {
	pid := 12345 // a running node process
	f, err := os.Create("app.heapsnapshot")
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := inspector.Snapshot(ctx, pid, f, inspector.Options{}); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	g, err := heapsnapshot.Open("app.heapsnapshot")
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("%d objects", g.NumObjects())
}
