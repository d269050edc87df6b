//go:build !js

package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"vkm/host/project"
	"vkm/host/record"
)

// WatchRecording serves the recording at path as a page with a timeline
// (record.TimelineServer) on addr ("127.0.0.1:8080"; port 0 picks one)
// until ctx ends: `vkmd replay FILE --web` and `client FILE --view`. It
// starts at o.Until (0: the start), on o.ProjectDir's files when set, and
// says where the page is on out.
func WatchRecording(ctx context.Context, path, addr string, out io.Writer, o record.Options) error {
	rec, err := record.ReadFile(path)
	if err != nil {
		return err
	}
	cfg := record.TimelineConfig{PlayConfig: record.PlayConfig{Logger: o.Logger}}
	if o.ProjectDir != "" {
		if cfg.Project, err = project.LoadProject(o.ProjectDir); err != nil {
			return err
		}
	}
	if rec.Torn {
		fmt.Fprintf(out, "the file ends in a record cut short or damaged at byte %d: it plays to its last whole record\n", rec.TornAt)
	}
	tl, err := record.NewTimeline(rec, cfg)
	if err != nil {
		return err
	}
	defer tl.Close()
	if o.Until > 0 {
		if err := tl.Jump(o.Until); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("host: the timeline page: %w", err)
	}
	fmt.Fprintf(out, "%s: %s at %d Hz; the timeline page is at http://%s/\n", path, rec.Header.Project, rec.Header.TickRate, ln.Addr())
	srv := &http.Server{Handler: record.NewTimelineServer(tl, time.Now, o.Logger), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
