package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
)

func TestServeFlags(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
		want    serveOptions
	}{
		{args: []string{"--socket", "/tmp/x.sock"}, want: serveOptions{Socket: "/tmp/x.sock"}},
		{args: []string{"--http", "127.0.0.1:0"}, want: serveOptions{HTTP: "127.0.0.1:0"}},
		{args: nil, wantErr: "exactly one of"},
		{args: []string{"--socket", "a", "--http", "b"}, wantErr: "exactly one of"},
	}
	for _, tt := range tests {
		var got serveOptions
		cmd := newServeCmd(&bytes.Buffer{}, func(_ context.Context, o serveOptions) error { got = o; return nil })
		cmd.SetArgs(tt.args)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		if tt.wantErr != "" {
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tt.want.Socket, got.Socket)
		assert.Equal(t, tt.want.HTTP, got.HTTP)
	}
}

func TestRunServeReplacesStaleSocketAndShutsDown(t *testing.T) {
	dir, err := os.MkdirTemp("", "cw")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "go.sock")
	// Leave a socket file behind with nothing listening, as a crashed
	// process would.
	ln, err := net.Listen("unix", sock)
	require.NoError(t, err)
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	require.NoError(t, ln.Close())

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, serveOptions{Socket: sock, Stderr: &bytes.Buffer{}}) }()

	c, err := domain.NewClient(domain.ServiceConfig{Name: "go", Transport: domain.TransportUnix, Endpoint: sock})
	require.NoError(t, err)
	defer c.Close()
	require.Eventually(t, func() bool { return c.Health(context.Background()) == nil }, 5*time.Second, 20*time.Millisecond)
	cancel()
	require.NoError(t, <-done)
	_, err = os.Stat(sock)
	assert.True(t, os.IsNotExist(err), "socket file removed on shutdown")
}
