package db

import (
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Team owns API keys and crawls.
type Team struct {
	bun.BaseModel `bun:"table:teams"`

	ID        uuid.UUID `bun:"id,pk,type:uuid,default:gen_random_uuid()"`
	Name      string    `bun:"name,notnull"`
	CreatedAt time.Time `bun:"created_at,nullzero,notnull,default:now()"`
}

// APIKey is a team's key, stored as a hash.
type APIKey struct {
	bun.BaseModel `bun:"table:api_keys"`

	ID        uuid.UUID  `bun:"id,pk,type:uuid,default:gen_random_uuid()"`
	TeamID    uuid.UUID  `bun:"team_id,type:uuid,notnull"`
	BrandID   *string    `bun:"brand_id"`
	KeyHash   string     `bun:"key_hash,notnull"`
	KeyPrefix string     `bun:"key_prefix,notnull"`
	CreatedAt time.Time  `bun:"created_at,nullzero,notnull,default:now()"`
	RevokedAt *time.Time `bun:"revoked_at"`
}

// Robots is a robots.txt file as a crawl read it.
type Robots struct {
	bun.BaseModel `bun:"table:robots"`

	CrawlID    uuid.UUID `bun:"crawl_id,pk,type:uuid"`
	Origin     string    `bun:"origin,pk"`
	StatusCode int       `bun:"status_code,notnull"`
	Body       string    `bun:"body,notnull"`
	FetchedAt  time.Time `bun:"fetched_at,nullzero,notnull,default:now()"`
}
