package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// The completion scripts are made from the command table and each
// command's flags (see [flagsOf]), so they offer what the binary that
// printed them accepts.

// complFlag is one flag as the completion scripts see it.
type complFlag struct {
	name   string
	usage  string
	bool   bool
	file   bool     // its value is a file
	dir    bool     // its value is a directory
	values []string // its value is one of these
}

// complCommand is one command as the completion scripts see it.
type complCommand struct {
	name, short string
	flags       []complFlag
	files       bool     // its arguments are files
	words       []string // its first argument is one of these
}

var shells = []string{"bash", "zsh", "fish"}

func completionModel() []complCommand {
	var out []complCommand
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	for _, c := range commands {
		cc := complCommand{name: c.name, short: c.short}
		switch c.name {
		case "help":
			cc.words = names
		case "completion":
			cc.words = shells
		case "version", "python-path", "snapshot":
		default:
			cc.files = true
		}
		if fs := flagsOf(c); fs != nil {
			fs.VisitAll(func(f *flag.Flag) {
				cf := complFlagOf(f)
				if f.Name == "format" {
					cf.values = slices.DeleteFunc(cf.values, func(v string) bool {
						return v == "html" && !htmlCommands[c.name] || v == "dot" && !dotCommands[c.name] || v == "pprof" && !pprofCommands[c.name]
					})
				}
				cc.flags = append(cc.flags, cf)
			})
		}
		out = append(out, cc)
	}
	return out
}

func complFlagOf(f *flag.Flag) complFlag {
	arg, usage := flag.UnquoteUsage(f)
	cf := complFlag{name: f.Name, usage: usage}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		cf.bool = true
	}
	switch arg {
	case "file", "FILE":
		cf.file = true
	case "DIR":
		cf.dir = true
	case "format":
		// "output format: text, json, markdown, html (top, leaks) or dot (why)"
		if i := strings.LastIndex(usage, ": "); i >= 0 {
			list := regexp.MustCompile(`\([^)]*\)`).ReplaceAllString(usage[i+2:], "")
			for _, v := range strings.FieldsFunc(strings.ReplaceAll(list, " or ", ","), func(r rune) bool { return r == ',' }) {
				if v = strings.TrimSpace(v); v != "" {
					cf.values = append(cf.values, v)
				}
			}
		}
	}
	return cf
}

// dash returns a flag as users type it: -v, --json.
func (f complFlag) dash() string {
	if len(f.name) == 1 {
		return "-" + f.name
	}
	return "--" + f.name
}

func runCompletion(args []string, stdout, stderr io.Writer) error {
	fs := flagSet("completion", "bash|zsh|fish", stderr)
	pos, err := parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	var script string
	switch pos[0] {
	case "bash":
		script = bashCompletion(completionModel())
	case "zsh":
		script = zshCompletion(completionModel())
	case "fish":
		script = fishCompletion(completionModel())
	default:
		return usagef("completion: unknown shell %q (want bash, zsh or fish)%s", pos[0], didYouMean(pos[0], shells, ""))
	}
	_, err = io.WriteString(stdout, script)
	return err
}

func bashCompletion(cmds []complCommand) string {
	var b strings.Builder
	var names []string
	for _, c := range cmds {
		names = append(names, c.name)
	}
	b.WriteString(`# bash completion for heapscope. Load it into this shell:
#   source <(heapscope completion bash)
# or for every shell: heapscope completion bash > /etc/bash_completion.d/heapscope
_heapscope() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=
	(( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}
	local opt=$prev
	# --flag=VALUE: bash splits at the "=".
	if [[ $cur == = ]]; then
		cur=
	elif [[ $prev == = ]] && (( COMP_CWORD >= 2 )); then
		opt=${COMP_WORDS[COMP_CWORD-2]}
	fi
	COMPREPLY=()
	if (( COMP_CWORD == 1 )); then
`)
	fmt.Fprintf(&b, "\t\tCOMPREPLY=($(compgen -W %q -- \"$cur\"))\n\t\treturn\n\tfi\n", strings.Join(names, " ")+" --help --version")
	b.WriteString("\tlocal cmd=${COMP_WORDS[1]}\n\tcase \"$cmd $opt\" in\n")
	for _, c := range cmds {
		for _, f := range c.flags {
			if f.bool {
				continue
			}
			pat := fmt.Sprintf("%q|%q", c.name+" -"+f.name, c.name+" --"+f.name)
			switch {
			case len(f.values) > 0:
				fmt.Fprintf(&b, "\t%s)\n\t\tCOMPREPLY=($(compgen -W %q -- \"$cur\"))\n\t\treturn ;;\n", pat, strings.Join(f.values, " "))
			case f.file:
				fmt.Fprintf(&b, "\t%s)\n\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\t\treturn ;;\n", pat)
			case f.dir:
				fmt.Fprintf(&b, "\t%s)\n\t\tCOMPREPLY=($(compgen -d -- \"$cur\"))\n\t\treturn ;;\n", pat)
			default:
				fmt.Fprintf(&b, "\t%s)\n\t\treturn ;; # a value: nothing to offer\n", pat)
			}
		}
	}
	b.WriteString("\tesac\n\tif [[ $cur == -* ]]; then\n\t\tcase $cmd in\n")
	for _, c := range cmds {
		if len(c.flags) == 0 {
			continue
		}
		var fl []string
		for _, f := range c.flags {
			fl = append(fl, f.dash())
		}
		fmt.Fprintf(&b, "\t\t%s) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", c.name, strings.Join(fl, " "))
	}
	b.WriteString("\t\tesac\n\t\treturn\n\tfi\n\tcase $cmd in\n")
	var files []string
	for _, c := range cmds {
		if c.files {
			files = append(files, c.name)
		}
		if len(c.words) > 0 {
			fmt.Fprintf(&b, "\t%s)\n\t\t(( COMP_CWORD == 2 )) && COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", c.name, strings.Join(c.words, " "))
		}
	}
	fmt.Fprintf(&b, "\t%s)\n\t\tCOMPREPLY=($(compgen -f -- \"$cur\")) ;;\n", strings.Join(files, "|"))
	b.WriteString("\tesac\n}\ncomplete -o filenames -F _heapscope heapscope\n")
	return b.String()
}

// zshQuote quotes s for a single-quoted zsh word inside an _arguments
// or _describe spec, where brackets and colons are syntax.
func zshQuote(s string) string {
	r := strings.NewReplacer("'", `'\''`, "[", "(", "]", ")", ":", `\:`, "\\", `\\`)
	return r.Replace(s)
}

func zshCompletion(cmds []complCommand) string {
	var b strings.Builder
	b.WriteString(`#compdef heapscope
# zsh completion for heapscope. Load it into this shell (after compinit):
#   source <(heapscope completion zsh)
# or install it as _heapscope in a directory on $fpath.
_heapscope() {
	local -a cmds
	cmds=(
`)
	for _, c := range cmds {
		fmt.Fprintf(&b, "\t\t'%s:%s'\n", c.name, zshQuote(c.short))
	}
	b.WriteString(`	)
	if (( CURRENT == 2 )); then
		_describe -t commands 'heapscope command' cmds
		return
	fi
	local cmd=$words[2]
	shift words
	(( CURRENT-- ))
	case $cmd in
`)
	for _, c := range cmds {
		fmt.Fprintf(&b, "\t%s)\n\t\t_arguments -S", c.name)
		for _, f := range c.flags {
			spec := "'" + f.dash()
			if !f.bool {
				spec += "="
			}
			spec += "[" + zshQuote(f.usage) + "]"
			switch {
			case f.bool:
			case len(f.values) > 0:
				spec += ":" + f.name + ":(" + strings.Join(f.values, " ") + ")"
			case f.file:
				spec += ":file:_files"
			case f.dir:
				spec += ":directory:_files -/"
			default:
				spec += ":" + f.name + ": "
			}
			b.WriteString(" \\\n\t\t\t" + spec + "'")
		}
		switch {
		case len(c.words) > 0:
			fmt.Fprintf(&b, " \\\n\t\t\t'1:%s:(%s)'", c.name, strings.Join(c.words, " "))
		case c.files:
			b.WriteString(" \\\n\t\t\t'*:file:_files'")
		}
		b.WriteString(" ;;\n")
	}
	b.WriteString(`	esac
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
	_heapscope "$@"
else
	compdef _heapscope heapscope
fi
`)
	return b.String()
}

// fishQuote quotes s as a single-quoted fish word.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

func fishCompletion(cmds []complCommand) string {
	var b strings.Builder
	b.WriteString(`# fish completion for heapscope. Load it into this shell:
#   heapscope completion fish | source
# or for every shell: heapscope completion fish > ~/.config/fish/completions/heapscope.fish
function __heapscope_command
	set -l words (commandline -opc)
	test (count $words) -ge 2; and contains -- $words[2] $argv
end
function __heapscope_needs_command
	test (count (commandline -opc)) -eq 1
end
complete -c heapscope -f
complete -c heapscope -n __heapscope_needs_command -l help -d 'show help'
complete -c heapscope -n __heapscope_needs_command -l version -d 'print the version'
`)
	for _, c := range cmds {
		fmt.Fprintf(&b, "complete -c heapscope -n __heapscope_needs_command -a %s -d %s\n", c.name, fishQuote(c.short))
	}
	for _, c := range cmds {
		cond := fishQuote("__heapscope_command " + c.name)
		for _, f := range c.flags {
			opt := "-l " + f.name
			if len(f.name) == 1 {
				opt = "-s " + f.name
			}
			switch {
			case f.bool:
			case len(f.values) > 0:
				opt += " -x -a " + fishQuote(strings.Join(f.values, " "))
			case f.file:
				opt += " -r -F"
			case f.dir:
				opt += " -x -a '(__fish_complete_directories)'"
			default:
				opt += " -x"
			}
			fmt.Fprintf(&b, "complete -c heapscope -n %s %s -d %s\n", cond, opt, fishQuote(f.usage))
		}
		switch {
		case len(c.words) > 0:
			fmt.Fprintf(&b, "complete -c heapscope -n %s -x -a %s\n", cond, fishQuote(strings.Join(c.words, " ")))
		case c.files:
			fmt.Fprintf(&b, "complete -c heapscope -n %s -F\n", cond)
		}
	}
	return b.String()
}
