package rt

import (
	"context"
	"log"
	"log/slog"
	"runtime"
	"time"
	"unsafe"

	"heddle.dev/internal/engine"
)

// A slog handler serializes its output with a lock of package log/slog
// (and the default handler with log's), which is not rewritten: without a
// step, two goroutines' slog calls were independent for DPOR, which
// explored one order of their lines only (conform TestSlogTwoGoroutines,
// TestSlogDerivedLoggers). Every entry a Logger writes (its level enabled)
// is now a step: an atomic write of one object standing for all slog
// output, the default log.Logger. One object for all, because loggers
// derived with With or WithGroup share their parent handler's lock and
// writer, which are not reachable from outside, and the default handler
// writes through log's default logger. Entries of unrelated loggers are
// thus ordered as if dependent: more orders explored, none missed.

// slogEntry is the step of an entry logged by l at level (nil: the
// default logger), if l logs it. It returns the logger that logs it, nil
// if none. The default logger is the one set when the step is taken (a
// SetDefault is a step too), as slog.Info loads it when it logs.
func slogEntry(ctx context.Context, l *slog.Logger, level slog.Level) *slog.Logger {
	if ctx == nil {
		ctx = context.Background()
	}
	def := l == nil
	if def {
		l = slog.Default()
	}
	if !l.Handler().Enabled(ctx, level) {
		return nil
	}
	x := engine.Current()
	if x == nil {
		return l
	}
	x.Access(unsafe.Pointer(log.Default()), engine.OpAtomicWrite)
	if def {
		if l = slog.Default(); !l.Handler().Enabled(ctx, level) {
			return nil
		}
	}
	return l
}

// slogLog is slog's Logger.log for l (nil: the default logger): called by
// a function called by the user's code, the record's source is the user's
// call.
func slogLog(ctx context.Context, l *slog.Logger, level slog.Level, msg string, args []any, attrs []slog.Attr) {
	if l = slogEntry(ctx, l, level); l == nil {
		return
	}
	var pcs [1]uintptr
	// skip [runtime.Callers, slogLog, the rt function, the user's caller]
	runtime.Callers(3, pcs[:])
	r := slog.NewRecord(time.Now(), level, msg, pcs[0])
	r.Add(args...)
	r.AddAttrs(attrs...)
	if ctx == nil {
		ctx = context.Background()
	}
	_ = l.Handler().Handle(ctx, r)
}

// SlogSetDefault replaces slog.SetDefault: a step, the write of the object
// of all slog output (it changes log's default logger's output too).
func SlogSetDefault(l *slog.Logger) {
	logStep(log.Default())
	slog.SetDefault(l)
}

// SlogLoggerDebug replaces l.Debug(msg, args...) on a *slog.Logger.
func SlogLoggerDebug(l *slog.Logger, msg string, args ...any) {
	slogLog(context.Background(), l, slog.LevelDebug, msg, args, nil)
}

// SlogLoggerDebugContext replaces l.DebugContext.
func SlogLoggerDebugContext(l *slog.Logger, ctx context.Context, msg string, args ...any) {
	slogLog(ctx, l, slog.LevelDebug, msg, args, nil)
}

// SlogLoggerInfo replaces l.Info.
func SlogLoggerInfo(l *slog.Logger, msg string, args ...any) {
	slogLog(context.Background(), l, slog.LevelInfo, msg, args, nil)
}

// SlogLoggerInfoContext replaces l.InfoContext.
func SlogLoggerInfoContext(l *slog.Logger, ctx context.Context, msg string, args ...any) {
	slogLog(ctx, l, slog.LevelInfo, msg, args, nil)
}

// SlogLoggerWarn replaces l.Warn.
func SlogLoggerWarn(l *slog.Logger, msg string, args ...any) {
	slogLog(context.Background(), l, slog.LevelWarn, msg, args, nil)
}

// SlogLoggerWarnContext replaces l.WarnContext.
func SlogLoggerWarnContext(l *slog.Logger, ctx context.Context, msg string, args ...any) {
	slogLog(ctx, l, slog.LevelWarn, msg, args, nil)
}

// SlogLoggerError replaces l.Error.
func SlogLoggerError(l *slog.Logger, msg string, args ...any) {
	slogLog(context.Background(), l, slog.LevelError, msg, args, nil)
}

// SlogLoggerErrorContext replaces l.ErrorContext.
func SlogLoggerErrorContext(l *slog.Logger, ctx context.Context, msg string, args ...any) {
	slogLog(ctx, l, slog.LevelError, msg, args, nil)
}

// SlogLoggerLog replaces l.Log.
func SlogLoggerLog(l *slog.Logger, ctx context.Context, level slog.Level, msg string, args ...any) {
	slogLog(ctx, l, level, msg, args, nil)
}

// SlogLoggerLogAttrs replaces l.LogAttrs.
func SlogLoggerLogAttrs(l *slog.Logger, ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	slogLog(ctx, l, level, msg, nil, attrs)
}

// SlogDebug replaces slog.Debug.
func SlogDebug(msg string, args ...any) {
	slogLog(context.Background(), nil, slog.LevelDebug, msg, args, nil)
}

// SlogDebugContext replaces slog.DebugContext.
func SlogDebugContext(ctx context.Context, msg string, args ...any) {
	slogLog(ctx, nil, slog.LevelDebug, msg, args, nil)
}

// SlogInfo replaces slog.Info.
func SlogInfo(msg string, args ...any) {
	slogLog(context.Background(), nil, slog.LevelInfo, msg, args, nil)
}

// SlogInfoContext replaces slog.InfoContext.
func SlogInfoContext(ctx context.Context, msg string, args ...any) {
	slogLog(ctx, nil, slog.LevelInfo, msg, args, nil)
}

// SlogWarn replaces slog.Warn.
func SlogWarn(msg string, args ...any) {
	slogLog(context.Background(), nil, slog.LevelWarn, msg, args, nil)
}

// SlogWarnContext replaces slog.WarnContext.
func SlogWarnContext(ctx context.Context, msg string, args ...any) {
	slogLog(ctx, nil, slog.LevelWarn, msg, args, nil)
}

// SlogError replaces slog.Error.
func SlogError(msg string, args ...any) {
	slogLog(context.Background(), nil, slog.LevelError, msg, args, nil)
}

// SlogErrorContext replaces slog.ErrorContext.
func SlogErrorContext(ctx context.Context, msg string, args ...any) {
	slogLog(ctx, nil, slog.LevelError, msg, args, nil)
}

// SlogLog replaces slog.Log.
func SlogLog(ctx context.Context, level slog.Level, msg string, args ...any) {
	slogLog(ctx, nil, level, msg, args, nil)
}

// SlogLogAttrs replaces slog.LogAttrs.
func SlogLogAttrs(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	slogLog(ctx, nil, level, msg, nil, attrs)
}
