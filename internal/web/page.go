package web

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Page sizes: the default and the most one request may ask for.
const (
	defaultLimit = 100
	maxLimit     = 1000
)

// pageQuery is what a paged endpoint was asked for.
type pageQuery struct {
	q      string // substring of the name, any case
	sort   string // a column (a JSON field name); "" keeps the analysis's order
	desc   bool
	offset int
	limit  int
}

func parsePage(r *http.Request) (pageQuery, error) {
	v := r.URL.Query()
	p := pageQuery{q: strings.ToLower(v.Get("q")), sort: v.Get("sort"), limit: defaultLimit}
	p.desc = v.Get("desc") == "1" || v.Get("desc") == "true"
	var err error
	if s := v.Get("offset"); s != "" {
		if p.offset, err = strconv.Atoi(s); err != nil || p.offset < 0 {
			return p, badRequest("offset: want a number >= 0, got %q", s)
		}
	}
	if s := v.Get("limit"); s != "" {
		if p.limit, err = strconv.Atoi(s); err != nil || p.limit < 1 || p.limit > maxLimit {
			return p, badRequest("limit: want a number from 1 to %d, got %q", maxLimit, s)
		}
	}
	return p, nil
}

// column orders rows by one value.
type column[T any] func(a, b T) int

func num[T any, N cmp.Ordered](f func(T) N) column[T] {
	return func(a, b T) int { return cmp.Compare(f(a), f(b)) }
}

// paged is one page of rows and how many rows the filter kept.
type paged[T any] struct {
	Total int `json:"total"`
	Rows  []T `json:"rows"`
}

// cut returns the rows whose name contains p.q (all rows when name is
// nil), ordered by p.sort (ties
// keep the analysis's order, so pages are deterministic), offset and
// limit applied. rows is not changed.
func cut[T any](rows []T, p pageQuery, name func(T) string, cols map[string]column[T]) (paged[T], error) {
	kept := rows
	if p.q != "" && name != nil {
		kept = nil
		for _, r := range rows {
			if strings.Contains(strings.ToLower(name(r)), p.q) {
				kept = append(kept, r)
			}
		}
	}
	if p.sort != "" {
		c, ok := cols[p.sort]
		if !ok {
			return paged[T]{}, badRequest("sort: unknown column %q", p.sort)
		}
		kept = slices.Clone(kept)
		slices.SortStableFunc(kept, func(a, b T) int {
			if p.desc {
				return c(b, a)
			}
			return c(a, b)
		})
	}
	out := paged[T]{Total: len(kept), Rows: []T{}}
	if p.offset < len(kept) {
		out.Rows = kept[p.offset:min(len(kept), p.offset+p.limit)]
	}
	return out, nil
}
