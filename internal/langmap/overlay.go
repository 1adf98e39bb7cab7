package langmap

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"time"

	"github.com/cogworks/cogworks/domain"
)

// Overlay returns base with a request's artifacts laid over it: an
// artifact's path reads as its content whether or not base has it (new
// directories appear as needed), and a deleted one is gone. It is how a
// caller maps a checkout plus the artifacts a stage is generating
// (domain.Request's Artifacts) without writing them out. Paths are
// slash-separated and relative to base's root; ones that escape it are
// ignored.
func Overlay(base fs.FS, artifacts []domain.Artifact) fs.FS {
	o := &overlayFS{base: base, files: map[string]string{}, deleted: map[string]bool{}, dirs: map[string][]string{}}
	for _, a := range artifacts {
		p := path.Clean(a.Path)
		if !fs.ValidPath(p) || p == "." {
			continue
		}
		if a.Delete {
			o.deleted[p] = true
			delete(o.files, p)
			continue
		}
		delete(o.deleted, p)
		o.files[p] = a.Content
		for child, dir := p, path.Dir(p); ; child, dir = dir, path.Dir(dir) {
			if !slices.Contains(o.dirs[dir], path.Base(child)) {
				o.dirs[dir] = append(o.dirs[dir], path.Base(child))
			}
			if dir == "." {
				break
			}
		}
	}
	for p := range o.deleted { // the listing of a deleted file's directory changes too
		if dir := path.Dir(p); o.dirs[dir] == nil {
			o.dirs[dir] = []string{}
		}
	}
	return o
}

// MapRequest maps a domain-service request's repository with its
// artifacts laid over it: what a service answers to repo_map.
func MapRequest(ctx context.Context, req domain.Request) (domain.RepoMapResult, error) {
	if req.Repository.Path == "" {
		return domain.RepoMapResult{}, fmt.Errorf("map request: no repository path")
	}
	return Map(ctx, Overlay(os.DirFS(req.Repository.Path), req.Artifacts))
}

type overlayFS struct {
	base    fs.FS
	files   map[string]string
	deleted map[string]bool
	// dirs lists, per directory, the names the overlay adds to it.
	dirs map[string][]string
}

func (o *overlayFS) Open(name string) (fs.File, error) {
	if c, ok := o.files[name]; ok {
		return &memFile{info: memInfo{name: path.Base(name), size: int64(len(c))}, r: bytes.NewReader([]byte(c))}, nil
	}
	if o.deleted[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if o.dirs[name] == nil {
		return o.base.Open(name)
	}
	// A directory the overlay adds to: its listing must be the merged one.
	entries, err := o.ReadDir(name)
	if err != nil {
		return nil, err
	}
	var info fs.FileInfo = memInfo{name: path.Base(name), dir: true}
	if bi, err := fs.Stat(o.base, name); err == nil && bi.IsDir() {
		info = bi
	}
	return &memFile{info: info, r: bytes.NewReader(nil), entries: entries}, nil
}

// ReadDir merges base's entries with the overlay's, sorted by name as
// fs.ReadDir promises.
func (o *overlayFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(o.base, name)
	if err != nil && o.dirs[name] == nil {
		return nil, err
	}
	byName := map[string]fs.DirEntry{}
	for _, e := range entries {
		if !o.deleted[path.Join(name, e.Name())] {
			byName[e.Name()] = e
		}
	}
	for _, n := range o.dirs[name] {
		p := path.Join(name, n)
		if c, ok := o.files[p]; ok {
			byName[n] = fs.FileInfoToDirEntry(memInfo{name: n, size: int64(len(c))})
		} else if _, ok := byName[n]; !ok {
			byName[n] = fs.FileInfoToDirEntry(memInfo{name: n, dir: true})
		}
	}
	out := make([]fs.DirEntry, 0, len(byName))
	for _, n := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[n])
	}
	return out, nil
}

// memFile is an overlay file or a directory only the overlay creates.
type memFile struct {
	info    fs.FileInfo
	r       *bytes.Reader
	entries []fs.DirEntry // a directory's, consumed by ReadDir
}

// ReadDir lists a directory's entries as fs.ReadDirFile specifies.
func (f *memFile) ReadDir(n int) ([]fs.DirEntry, error) {
	if !f.info.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: f.info.Name(), Err: fs.ErrInvalid}
	}
	if n <= 0 {
		out := f.entries
		f.entries = nil
		return out, nil
	}
	if len(f.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(f.entries))
	out := f.entries[:n]
	f.entries = f.entries[n:]
	return out, nil
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Read(b []byte) (int, error) {
	if f.info.IsDir() {
		return 0, &fs.PathError{Op: "read", Path: f.info.Name(), Err: fs.ErrInvalid}
	}
	return f.r.Read(b)
}
func (f *memFile) Close() error { return nil }

// memInfo describes an overlay file or directory.
type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }
