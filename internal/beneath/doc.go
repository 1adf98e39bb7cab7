// Package beneath reads files under a directory that untrusted code may
// have changed, as regular files only.
//
// The Go domain service builds a workspace, lets sandboxed code (a
// generated test) run in it, and then reads some of its files back on the
// host, outside the sandbox. Whatever the sandboxed code left there is
// untrusted: a symbolic link to a host file, a FIFO that blocks an open or
// a read forever, a device such as /dev/zero that never ends. ReadFile and
// IsRegular resolve a relative path strictly beneath a root directory without
// following any symbolic link (openat2 with RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS where the kernel has it, else one O_NOFOLLOW openat
// per path element), open without blocking, and accept only a regular
// file, read up to a size cap. The root itself is trusted: it is opened
// the ordinary way.
//
// Functions are safe for concurrent use; they hold no state.
package beneath
