package analyze

import (
	"slices"
	"strings"
)

// NoiseRule describes growth that is not a leak: a cache of the runtime
// or of a library that fills once and stops. A rule matches a group of
// objects held by one kind of path when every field it sets matches.
type NoiseRule struct {
	// Name identifies the rule in listings and in suppression files.
	Name string `json:"name"`
	// Runtime is "python", "java" or "v8"; empty matches every runtime.
	Runtime string `json:"runtime,omitempty"`
	// Root must equal the name of the root the path starts from (for
	// Python, a module's name); a trailing "*" matches any suffix.
	Root string `json:"root,omitempty"`
	// Through lists edge names that must appear on the path signature in
	// this order (not necessarily next to each other), as `why` shows them
	// (".attr", "[*]").
	Through []string `json:"through,omitempty"`
	// ThroughType lists type names that must appear on the path.
	ThroughType []string `json:"through_type,omitempty"`
	// Type must equal the type of the grouped objects; a trailing "*"
	// matches any suffix ("Detached *").
	Type string `json:"type,omitempty"`
	// Owner must match the type of the group's owner on the path (see
	// [PathOwner]); a trailing "*" matches any suffix, so "_pytest.*"
	// matches every class of pytest's modules. What a group set aside by
	// an Owner rule holds, further down the same path, is set aside with
	// it (see [Leaks]).
	Owner string `json:"owner,omitempty"`
	// Within, when set, is the prefix of the type names of a runtime's
	// own machinery ("java.lang.invoke."): the path must start at an
	// object of such a type or at a class object of such a class, and
	// every step after it, up to the grouped objects, must be one too, or
	// an array, a java.lang.ref reference or a java.util collection's
	// part (the machinery keeps its caches in them). What the machinery
	// alone holds is its own.
	Within string `json:"within,omitempty"`
	// Reason says why this growth is not a leak.
	Reason string `json:"reason"`
}

// Matches reports whether the rule matches group grp, found in a snapshot
// of runtime.
func (r NoiseRule) Matches(runtime string, grp PathGroup) bool {
	if r.Runtime != "" && r.Runtime != runtime {
		return false
	}
	if r.Root != "" && !globMatch(r.Root, grp.RootName) {
		return false
	}
	if r.Type != "" && (len(grp.Signature) == 0 || !globMatch(r.Type, grp.Signature[len(grp.Signature)-1].Type)) {
		return false
	}
	i := 0
	for _, want := range r.Through {
		for i < len(grp.Signature) && grp.Signature[i].Edge != want {
			i++
		}
		if i == len(grp.Signature) {
			return false
		}
		i++
	}
	for _, want := range r.ThroughType {
		if !slices.ContainsFunc(grp.Signature, func(s SigStep) bool { return s.Type == want }) {
			return false
		}
	}
	if r.Owner != "" && !globMatch(r.Owner, PathOwner(runtime, grp)) {
		return false
	}
	if r.Within != "" && !within(r.Within, grp.Signature) {
		return false
	}
	return r.Root != "" || r.Type != "" || len(r.Through) > 0 || len(r.ThroughType) > 0 || r.Owner != "" || r.Within != ""
}

// within reports whether sig starts at an object of the machinery whose
// type names start with prefix (see NoiseRule.Within) and goes, up to its
// last step, through the machinery's objects, arrays, references and
// java.util collections only.
func within(prefix string, sig []SigStep) bool {
	own := func(s SigStep) bool {
		return strings.HasPrefix(s.Type, prefix) || strings.HasPrefix(s.Name, "class "+prefix)
	}
	if len(sig) == 0 || !own(sig[0]) {
		return false
	}
	for i := 1; i < len(sig)-1; i++ {
		s := sig[i]
		if !own(s) && !strings.HasSuffix(s.Type, "[]") && !strings.HasPrefix(s.Type, "java.lang.ref.") && !strings.HasPrefix(s.Type, "java.util.") {
			return false
		}
	}
	return true
}

// plainContainers are, per runtime, the types [PathOwner] looks through:
// containers that hold whatever their owner puts in them.
var plainContainers = map[string][]string{
	"python": {"dict", "list", "tuple", "set", "frozenset", "cell",
		"collections.deque", "collections.OrderedDict", "collections.defaultdict"},
}

// PathOwner returns the type of the group's owner: the nearest object
// above the grouped objects on their path whose type is not a plain
// container of the runtime (for Python a dict, list, tuple, set,
// frozenset, cell or deque). It is the object whose state holds the
// group, the one a user would name: for "_pytest.monkeypatch.MonkeyPatch
// -> ._setattr list -> [*] tuple" it is the MonkeyPatch (where the
// finding's Holder is the list). "" when every step above the group is a
// plain container. In runtimes without a list of plain containers, it is
// the step right above the group.
func PathOwner(runtime string, grp PathGroup) string {
	plain := plainContainers[runtime]
	for i := len(grp.Signature) - 2; i >= 0; i-- {
		if t := grp.Signature[i].Type; !slices.Contains(plain, t) {
			return t
		}
	}
	return ""
}

func globMatch(pattern, s string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(s, p)
	}
	return pattern == s
}

// BuiltinNoise is the catalogue of interpreter and library caches that
// grow once and stop. Leak findings that match it are set aside (and
// counted) unless the caller asks for everything.
var BuiltinNoise = []NoiseRule{
	{Name: "python-re-cache", Runtime: "python", Root: "re", Reason: "the re module caches compiled patterns (bounded)"},
	{Name: "python-typing-caches", Runtime: "python", Root: "typing", Reason: "typing caches parameterized generics (bounded lru caches)"},
	{Name: "python-linecache", Runtime: "python", Root: "linecache", Reason: "linecache keeps the source lines of files shown in tracebacks"},
	{Name: "python-logging", Runtime: "python", Root: "logging", Reason: "logging registers every logger and handler once, by name"},
	{Name: "python-importer-cache", Runtime: "python", Root: "sys", Through: []string{".path_importer_cache"}, Reason: "the import system caches a finder per sys.path entry"},
	{Name: "python-import-bootstrap", Runtime: "python", Root: "importlib*", Reason: "the import system's own module caches"},
	{Name: "python-bootstrap", Runtime: "python", Root: "_frozen_importlib*", Reason: "the import system's own module caches"},
	{Name: "python-encodings", Runtime: "python", Root: "encodings", Reason: "codec lookups are cached per encoding name"},
	{Name: "python-strptime", Runtime: "python", Root: "_strptime", Reason: "strptime caches compiled formats (bounded)"},
	{Name: "python-copyreg", Runtime: "python", Root: "copyreg", Reason: "copyreg caches pickling helpers per class"},
	{Name: "python-warnings-registry", Runtime: "python", Through: []string{".__warningregistry__"}, Reason: "each module remembers the warnings it has shown once"},
	{Name: "python-warnings", Runtime: "python", Root: "warnings", Reason: "the warnings module remembers what it has shown once"},
	{Name: "python-tracemalloc", Runtime: "python", Root: "tracemalloc", Reason: "tracemalloc's own state"},
	{Name: "python-inspect", Runtime: "python", Root: "inspect", Reason: "inspect caches module and file lookups"},
	{Name: "python-functools-dispatch", Runtime: "python", Root: "functools", Reason: "singledispatch caches dispatch per type"},
	{Name: "python-subclass-registry", Runtime: "python", Root: NativeRootName, Through: []string{"[*]"}, Type: "weakref.ReferenceType", Reason: "CPython records each class's subclasses (tp_subclasses) as weak references keyed by address; they grow with the subclasses, which are reported where they are held"},
	{Name: "python-subclass-registry-keys", Runtime: "python", Root: NativeRootName, Through: []string{"<key>"}, Type: "int", Reason: "the keys of CPython's record of subclasses (tp_subclasses): the subclasses' addresses"},
	{Name: "python-subclass-record", Runtime: "python", Through: []string{"<subclasses>", "[*]"}, Type: "weakref.ReferenceType", Reason: "CPython records each class's subclasses (tp_subclasses) as weak references keyed by address; they grow with the subclasses, which are reported where they are held"},
	{Name: "python-subclass-record-keys", Runtime: "python", Through: []string{"<subclasses>", "<key>"}, Type: "int", Reason: "the keys of CPython's record of subclasses (tp_subclasses): the subclasses' addresses"},
	{Name: "python-unittest-mock", Runtime: "python", Owner: "unittest.mock.*", Reason: "mocks record every call made to them (call_args_list, mock_calls) and keep their child mocks"},
	{Name: "python-pytest", Runtime: "python", Owner: "_pytest.*", Reason: "pytest's fixtures record what each run of a test body does (caplog's records, monkeypatch's undo list) until the test ends"},
	{Name: "python-dask-logs", Runtime: "python", Owner: "distributed.*", ThroughType: []string{"collections.deque"}, Reason: "Dask's workers and scheduler keep samples in deques that they trim as they fill, without a maxlen (the last 30 timings of each FractionalTimer), and logs in deques with a maxlen (transitions and transfers 100,000, stimuli 10,000, profiles 3,600, system monitor samples, log records)"},
	{Name: "python-new-modules", Runtime: "python", Type: "module", Reason: "a module imported once, on first use"},
	{Name: "java-lambda-forms", Runtime: "java", ThroughType: []string{"java.lang.invoke.LambdaForm"}, Reason: "method handles are spun once per shape"},
	{Name: "java-method-type-intern", Runtime: "java", ThroughType: []string{"java.lang.invoke.MethodType$ConcurrentWeakInternSet"}, Reason: "MethodType interning table"},
	{Name: "java-method-handles", Runtime: "java", Within: "java.lang.invoke.", Reason: "what only the method handle machinery holds (the method types of linked call sites, lambda forms, bound method handle species, string concatenation shapes) is made once per call-site shape, when code first runs"},
	{Name: "java-class-loading", Runtime: "java", Type: "java.lang.Class", Reason: "classes load once, on first use"},
	{Name: "java-resolved-constants", Runtime: "java", Through: []string{"<resolved_references>"}, Reason: "constant-pool strings and objects resolved once, on first use"},
	{Name: "java-parallel-lock-map", Runtime: "java", Through: []string{"parallelLockMap"}, Reason: "class loaders keep one lock per class name loaded"},
	{Name: "java-resource-bundles", Runtime: "java", ThroughType: []string{"java.util.ResourceBundle"}, Reason: "resource bundles are cached per locale"},
	{Name: "v8-compiled-code", Runtime: "v8", Type: "(compiled code)", Reason: "code compiled and cached once per function"},
	{Name: "v8-system", Runtime: "v8", Type: "(system)", Reason: "VM-internal objects"},
	{Name: "v8-object-shapes", Runtime: "v8", Type: "(object shape)", Reason: "hidden classes made once per object shape"},
	{Name: "v8-compilation-cache", Runtime: "v8", ThroughType: []string{"(Compilation cache)"}, Reason: "V8's compilation cache"},
	{Name: "node-binding-data", Runtime: "v8", ThroughType: []string{"Node / BindingData"}, Reason: "Node's own state per native module (the HTTP parser's buffer, fs statistics), made again as it is used"},
	// Blink holds detached DOM nodes of its own for a while; memlab hides
	// these paths by default (hideBrowserLeak) as not the page's doing.
	{Name: "blink-style-engine", Runtime: "v8", ThroughType: []string{"StyleEngine"}, Type: "Detached *", Reason: "Blink's style engine keeps recently styled elements"},
	{Name: "blink-shadow-root", Runtime: "v8", ThroughType: []string{"ShadowRoot"}, Type: "Detached *", Reason: "a shadow root holds its detached children"},
	{Name: "blink-pending-activities", Runtime: "v8", ThroughType: []string{"Pending activities"}, Type: "Detached *", Reason: "Blink keeps elements with pending work (loads, events) until it is done"},
	{Name: "blink-internal-nodes", Runtime: "v8", ThroughType: []string{"InternalNode"}, Type: "Detached *", Reason: "Blink's internal nodes hold detached elements of its own"},
	{Name: "blink-detached-internal", Runtime: "v8", Type: "Detached InternalNode", Reason: "Blink's own detached internal nodes"},
	{Name: "v8-feedback", Runtime: "v8", ThroughType: []string{"(system)"}, Through: []string{"feedback_vector"}, Reason: "inline-cache feedback, filled as code warms up"},
}

// MatchNoise returns the first rule in rules that matches grp, or nil.
func MatchNoise(rules []NoiseRule, runtime string, grp PathGroup) *NoiseRule {
	for i := range rules {
		if rules[i].Matches(runtime, grp) {
			return &rules[i]
		}
	}
	return nil
}
