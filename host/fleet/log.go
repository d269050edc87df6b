package fleet

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/redis/go-redis/v9"
)

// LogRedisTo sends the Redis client's own log lines (go-redis writes them
// to the standard error by itself: a failed dial, a pool's trouble) to
// logger, as debug records with source=redis. A registration's and a
// lobby's failures are said in lines of their own (and counted in
// /metrics), so the client's repeat them for whoever wants the detail.
// It sets the client library's logger, which is the process's: call it
// once, from main.
func LogRedisTo(logger *slog.Logger) {
	redis.SetLogger(redisLog{logger})
}

// redisLog is go-redis's logger, writing to a slog.Logger.
type redisLog struct{ l *slog.Logger }

func (r redisLog) Printf(ctx context.Context, format string, v ...any) {
	r.l.DebugContext(ctx, strings.TrimSpace(fmt.Sprintf(format, v...)), "source", "redis")
}
