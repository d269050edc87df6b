package host

import (
	"log/slog"
	"time"

	"vkm/host/record"
	"vkm/host/session"
)

// startRecording records the match s is about to serve into a new file in
// dir (ServeConfig.Record), bounded at maxBytes (0: the default).
func startRecording(dir string, maxBytes int64, s *session.Server, logger *slog.Logger) (*record.File, error) {
	f, err := record.Create(dir, s.Game(), record.Config{MaxBytes: maxBytes, Started: time.Now(), Logger: logger})
	if err != nil {
		return nil, err
	}
	if err := s.Record(f); err != nil {
		f.Close()
		return nil, err
	}
	logger.Info("recording the match", "file", f.Path, "max_bytes", maxBytes)
	return f, nil
}

// stopRecording closes the match's recording and says where it is.
func stopRecording(f *record.File, logger *slog.Logger) {
	if err := f.Close(); err != nil {
		logger.Error("the recording was not closed whole", "file", f.Path, "err", err)
		return
	}
	logger.Info("recording written", "file", f.Path, "ticks", f.Ticks(), "bytes", f.Bytes())
}
