// Package testenv starts the real services integration tests run against:
// a private Temporal dev server (from the CLI that `make test` builds) and
// a fresh Postgres database on the test server.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/durablecrawl/crawler/browser"
	"github.com/durablecrawl/crawler/crawlflow"
	"github.com/durablecrawl/crawler/db"
)

// DefaultDatabaseURL is used when CRAWLER_TEST_DATABASE_URL is unset.
const DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// Database creates a new, migrated database named after prefix on the test
// Postgres server and returns it with a function that drops it.
func Database(ctx context.Context, prefix string) (*bun.DB, string, func(), error) {
	base := os.Getenv("CRAWLER_TEST_DATABASE_URL")
	if base == "" {
		base = DefaultDatabaseURL
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, "", nil, fmt.Errorf("CRAWLER_TEST_DATABASE_URL: %w", err)
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	u.Path = "/" + prefix + "_" + hex.EncodeToString(suffix)
	dsn := u.String()
	if err := db.EnsureDatabase(ctx, dsn); err != nil {
		return nil, "", nil, fmt.Errorf("create test database (is Postgres running? make test starts one): %w", err)
	}
	database, err := db.Open(ctx, dsn)
	if err != nil {
		return nil, "", nil, err
	}
	if _, err := db.Migrate(ctx, database); err != nil {
		database.Close()
		return nil, "", nil, err
	}
	drop := func() {
		database.Close()
		admin := *u
		admin.Path = "/postgres"
		if adb, err := db.Open(context.Background(), admin.String()); err == nil {
			_, _ = adb.Exec(`DROP DATABASE IF EXISTS "` + strings.TrimPrefix(u.Path, "/") + `" WITH (FORCE)`)
			adb.Close()
		}
	}
	return database, dsn, drop, nil
}

// TemporalCLI returns the path of the Temporal CLI: TEMPORAL_CLI_PATH, or
// bin/temporal at the repository root. Tests fail, not skip, without it.
func TemporalCLI() (string, error) {
	if p := os.Getenv("TEMPORAL_CLI_PATH"); p != "" {
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "bin", "temporal")
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("no Temporal CLI at %s: run `make test` (it builds it) or set TEMPORAL_CLI_PATH", p)
			}
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Temporal starts a private Temporal dev server on a free port with the
// crawl search attributes registered. extraArgs go to `temporal server
// start-dev` (for example dynamic config).
func Temporal(ctx context.Context, stderr io.Writer, extraArgs ...string) (*testsuite.DevServer, error) {
	cli, err := TemporalCLI()
	if err != nil {
		return nil, err
	}
	args := append([]string{}, extraArgs...)
	for name, typ := range crawlflow.SearchAttrTypes {
		args = append(args, "--search-attribute", name+"="+typ)
	}
	return testsuite.StartDevServer(ctx, testsuite.DevServerOptions{
		ExistingPath: cli,
		ClientOptions: &client.Options{Namespace: "default", Logger: tlog.NewStructuredLogger(
			slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))},
		LogLevel:  "error",
		ExtraArgs: args,
		Stdout:    stderr,
		Stderr:    stderr,
	})
}

// BrowserPaths are the Chromium and the Playwright driver folder that
// make test installs: CRAWLER_CHROMIUM_PATH and PLAYWRIGHT_DRIVER_PATH,
// or their defaults.
func BrowserPaths() (chromium, driver string, err error) {
	chromium = os.Getenv("CRAWLER_CHROMIUM_PATH")
	if chromium == "" {
		chromium = "/usr/lib/chromium/chromium"
	}
	driver = os.Getenv("PLAYWRIGHT_DRIVER_PATH")
	if driver == "" {
		cli, err := TemporalCLI() // bin/ at the repository root
		if err != nil {
			return "", "", err
		}
		driver = filepath.Join(filepath.Dir(cli), "playwright-driver")
	}
	return chromium, driver, nil
}

// Browser launches the Chromium and Playwright driver that make test
// installs (BrowserPaths).
func Browser(allowPrivate bool) (*browser.Browser, error) {
	chromium, driver, err := BrowserPaths()
	if err != nil {
		return nil, err
	}
	b, err := browser.Launch(browser.Options{ChromiumPath: chromium, DriverDir: driver, Pages: 4,
		AllowPrivateNetworks: allowPrivate, NavTimeout: 10 * time.Second, SettleTimeout: 2 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("launch the browser (make test installs Chromium and the driver): %w", err)
	}
	return b, nil
}
