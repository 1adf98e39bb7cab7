package scenario

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"
)

// Twin is a digital twin: a companion process a scenario runs against,
// declared in .cogworks/twins/*.toml by humans. Commands are argv lists and
// are never passed through a shell.
type Twin struct {
	// Name identifies the twin; it defaults to the file name without extension.
	Name string
	// Start launches the long-running twin process.
	Start []string
	// Ready says how to tell the twin is up.
	Ready Readiness
	// Reset returns the twin to fresh state between trajectories; when empty
	// the runner restarts the twin instead.
	Reset []string
	// Stop shuts the twin down; when empty the runner signals the process.
	Stop []string
	// File is the repository-relative file the twin was loaded from.
	File string
}

// Readiness is a twin's readiness probe: a command that exits 0 once the
// twin is ready, or a TCP address that accepts connections, polled every
// Interval until Timeout. With neither, the twin is ready once started.
type Readiness struct {
	Command  []string
	TCP      string
	Timeout  time.Duration
	Interval time.Duration
}

// Default readiness timings.
const (
	DefaultReadyTimeout  = 30 * time.Second
	DefaultReadyInterval = 200 * time.Millisecond
)

// TwinRunner controls twins. Validate calls Start then Ready before a
// scenario's first trajectory, Reset between trajectories, and Stop after
// the last one — always, once Start has been called, even when a trajectory
// or the context fails.
type TwinRunner interface {
	Start(ctx context.Context, t Twin) error
	Ready(ctx context.Context, t Twin) error
	Reset(ctx context.Context, t Twin) error
	Stop(ctx context.Context, t Twin) error
}

// Twins is the registered twin set plus the runner that controls them.
type Twins struct {
	Defs   map[string]Twin
	Runner TwinRunner
}

// LoadTwins reads every *.toml file directly in dir (a path inside fsys) as
// one twin. A missing directory yields no twins. Problems are returned
// together as *LoadError values (errors.Join).
//
//	name  = "canbus"                        # optional, defaults to the file stem
//	start = ["go", "run", "./twins/canbus"]
//	reset = ["./twins/canbus-reset"]        # optional
//	stop  = ["./twins/canbus-stop"]         # optional
//	[ready]                                 # optional
//	tcp = "127.0.0.1:7000"                  # or command = ["./probe"]
//	timeout = "30s"
//	interval = "200ms"
func LoadTwins(ctx context.Context, fsys fs.FS, dir string) (map[string]Twin, error) {
	files, err := configFiles(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("load twins from %s: %w", dir, err)
	}
	out := map[string]Twin{}
	var errs []error
	for _, file := range files {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("load twins from %s: %w", dir, err)
		}
		if path.Ext(file) != ".toml" {
			continue
		}
		doc, err := readDocument(fsys, file)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		t, err := buildTwin(file, doc)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prev, dup := out[t.Name]; dup {
			errs = append(errs, &LoadError{File: file, Twin: t.Name, Field: "name", Msg: "duplicate twin name, already defined in " + prev.File})
			continue
		}
		out[t.Name] = t
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func buildTwin(file string, doc map[string]any) (Twin, error) {
	t := Twin{File: file}
	p := params(doc)
	wrap := func(prefix string, err error) error {
		le := &LoadError{File: file, Twin: t.Name, Field: prefix, Msg: err.Error()}
		var fe *fieldError
		if errors.As(err, &fe) {
			le.Field, le.Msg = joinField(prefix, fe.field), fe.msg
		}
		return le
	}
	name, err := p.str("name", false)
	if err != nil {
		return t, wrap("", err)
	}
	if name == "" {
		name = strings.TrimSuffix(path.Base(file), path.Ext(file))
	}
	t.Name = name
	if err := p.only("name", "ready", "reset", "start", "stop"); err != nil {
		return t, wrap("", err)
	}
	if t.Start, err = p.strList("start"); err != nil {
		return t, wrap("", err)
	}
	for _, k := range []string{"reset", "stop"} {
		if !p.has(k) {
			continue
		}
		argv, err := p.strList(k)
		if err != nil {
			return t, wrap("", err)
		}
		if k == "reset" {
			t.Reset = argv
		} else {
			t.Stop = argv
		}
	}
	t.Ready = Readiness{Timeout: DefaultReadyTimeout, Interval: DefaultReadyInterval}
	if !p.has("ready") {
		return t, nil
	}
	rm, ok := p["ready"].(map[string]any)
	if !ok {
		return t, wrap("ready", fmt.Errorf("must be a table, got %s", typeName(p["ready"])))
	}
	if err := readiness(params(rm), &t.Ready); err != nil {
		return t, wrap("ready", err)
	}
	return t, nil
}

func readiness(p params, r *Readiness) error {
	if err := p.only("command", "interval", "tcp", "timeout"); err != nil {
		return err
	}
	if p.has("command") && p.has("tcp") {
		return fieldErrorf("command", "give either command or tcp, not both")
	}
	var err error
	if p.has("command") {
		if r.Command, err = p.strList("command"); err != nil {
			return err
		}
	}
	if r.TCP, err = p.str("tcp", false); err != nil {
		return err
	}
	for _, k := range []string{"timeout", "interval"} {
		s, err := p.str(k, false)
		if err != nil || s == "" {
			if err != nil {
				return err
			}
			continue
		}
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return fieldErrorf(k, "must be a positive duration like \"30s\", got %q", s)
		}
		if k == "timeout" {
			r.Timeout = d
		} else {
			r.Interval = d
		}
	}
	return nil
}
