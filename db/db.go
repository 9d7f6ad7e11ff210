// Package db stores teams, API keys, crawls, pages and crawl logs in
// Postgres through bun. Postgres is the service's source of truth: the API
// reads only from here, and every write the activities make is idempotent
// so that a retried activity changes nothing twice.
//
// The records of crawls, pages and logs are package crawl's; this package
// maps them and its own rows to tables, one file per table or concern:
// crawls.go (a crawl's record), frontier.go (pages queued and claimed),
// fetches.go (saving a batch's outcomes), results.go (pages made results,
// extraction), settle.go (deduplication's reads and writes), changes.go
// (change tracking), steer.go (changes of a running crawl), logs.go,
// robots.go, keys.go (teams and API keys), schedules.go, webhooks.go,
// screenshots.go, hostbudget.go, mapping.go (the URLs of a map), retry.go
// (transactions and the failures they are retried for), store.go (the
// Store and what every file shares) and db.go (opening and migrating).
package db

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/migrate"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Open connects to the database at dsn and checks that it answers.
func Open(ctx context.Context, dsn string) (*bun.DB, error) {
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
	sqldb.SetMaxOpenConns(20)
	sqldb.SetMaxIdleConns(10)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	db := bun.NewDB(sqldb, pgdialect.New())
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("connect to postgres %s: %w", redact(dsn), err)
	}
	return db, nil
}

// EnsureDatabase creates the database named in dsn when it does not exist,
// connecting to the server's "postgres" database to do so.
func EnsureDatabase(ctx context.Context, dsn string) error {
	u, err := url.Parse(dsn)
	if err != nil {
		return fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	if name == "" || name == "postgres" {
		return nil
	}
	admin := *u
	admin.Path = "/postgres"
	db, err := Open(ctx, admin.String())
	if err != nil {
		return err
	}
	defer db.Close()
	var exists bool
	if err := db.NewRaw("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = ?)", name).Scan(ctx, &exists); err != nil {
		return fmt.Errorf("look up database %s: %w", name, err)
	}
	if exists {
		return nil
	}
	if _, err := db.ExecContext(ctx, `CREATE DATABASE "`+strings.ReplaceAll(name, `"`, `""`)+`"`); err != nil {
		if strings.Contains(err.Error(), "already exists") {
			return nil // created by a concurrent caller
		}
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// migrateLockID is the advisory lock that serialises concurrent migrations.
const migrateLockID = 7_233_808_001

// Migrate applies every pending migration and returns their names.
func Migrate(ctx context.Context, db *bun.DB) ([]string, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(?)", migrateLockID); err != nil {
		return nil, fmt.Errorf("take migration lock: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(?)", migrateLockID) //nolint:errcheck

	migrations := migrate.NewMigrations()
	files, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	if err := migrations.Discover(files); err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	m := migrate.NewMigrator(db, migrations)
	if err := m.Init(ctx); err != nil {
		return nil, fmt.Errorf("init migrations: %w", err)
	}
	group, err := m.Migrate(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	var names []string
	for _, mg := range group.Migrations {
		names = append(names, mg.Name)
	}
	return names, nil
}

// redact hides the password of a DSN in error messages.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparsable DSN)"
	}
	return u.Redacted()
}
