// Command web measures heapscope web on one snapshot: it starts the
// server, times the first JSON of the overview (/api/snapshots) and of
// the top of the dominator tree (/api/snapshots/0/children/root, then
// the treemap and one expanded node), stops the server with SIGINT and
// reports its peak resident memory.
//
//	go run ./bench/web -bin ./heapscope SNAPSHOT
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/heapscope/heapscope/bench/web/server"
)

func main() {
	bin := flag.String("bin", "./heapscope", "the heapscope `binary`")
	flag.Parse()
	if flag.NArg() != 1 {
		log.Fatal("usage: web -bin heapscope SNAPSHOT")
	}
	log.SetFlags(0)
	start := time.Now()
	srv, err := server.Start(*bin, flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	cmd, url, token := srv.Cmd, srv.Base, srv.Token
	listening := time.Since(start)
	step := func(name, path string) []byte {
		t := time.Now()
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		res, err := http.Get(url + path + sep + "token=" + token)
		if err != nil {
			log.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			log.Fatalf("%s: %s %s", path, res.Status, body)
		}
		fmt.Printf("  %-32s %6.2f s from start (%.3f s for this request, %d bytes)\n", name, time.Since(start).Seconds(), time.Since(t).Seconds(), len(body))
		return body
	}
	fmt.Printf("  %-32s %6.2f s from start\n", "listening (snapshot read)", listening.Seconds())
	step("overview JSON", "api/snapshots")
	body := step("top of the dominator tree JSON", "api/snapshots/0/children/root?limit=50")
	step("treemap JSON", "api/snapshots/0/treemap/root")
	var kids struct {
		Rows []struct {
			ID       string `json:"id"`
			Children int    `json:"children"`
		} `json:"rows"`
	}
	json.Unmarshal(body, &kids)
	for _, k := range kids.Rows {
		if k.Children > 0 {
			step(fmt.Sprintf("expand a node (%d children)", k.Children), "api/snapshots/0/children/"+k.ID+"?limit=50")
			break
		}
	}
	step("summary page JSON", "api/snapshots/0/summary?limit=100")
	if err := srv.Stop(); err != nil {
		log.Fatalf("server: %v", err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	fmt.Printf("  server: user %.2f s, sys %.2f s, peak RSS %d KB\n",
		time.Duration(ru.Utime.Nano()).Seconds(), time.Duration(ru.Stime.Nano()).Seconds(), ru.Maxrss)
}
