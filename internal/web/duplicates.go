package web

import (
	"fmt"
	"net/http"

	"github.com/heapscope/heapscope/analyze"
	"github.com/heapscope/heapscope/internal/report"
)

// duplicates is what the duplicates command shows, the first topRows of
// each list: equal strings, objects equal by value, classes that share
// a name.
func (s *server) duplicates(r *http.Request) (any, error) {
	i, snap, an, err := s.analysis(r)
	if err != nil {
		return nil, err
	}
	return s.cached(r, fmt.Sprintf("duplicates/%d", i), func(func() bool) (any, error) {
		g, t := snap.Graph, an.Tree
		content := analyze.Duplicates(g, an.Paths, 0)
		values := analyze.ValueDuplicates(analyze.IndexValues(g), t, an.Paths)
		classes := analyze.SharedClassNames(t, an.Paths)
		return report.DuplicatesDoc(report.Source{Path: snap.Path, Overview: analyze.Describe(g)}, t, report.DuplicatesData{
			Content: content[:min(len(content), topRows)], ContentTotal: len(content),
			Values: values[:min(len(values), topRows)], ValuesTotal: len(values),
			Classes: classes[:min(len(classes), topRows)], ClassesTotal: len(classes)}), nil
	})
}
