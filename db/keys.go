package db

// Teams and their API keys: keys are stored hashed, and a key stands for
// its team (Authenticate).

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/durablecrawl/crawler/crawl"
)

// Principal is the caller an API key stands for.
type Principal struct {
	// KeyID identifies the API key the caller used (not the key itself).
	KeyID    uuid.UUID
	TeamID   uuid.UUID
	TeamName string
	BrandID  *string
}

// APIKeyPrefix starts every API key, so that leaked keys are easy to spot.
const APIKeyPrefix = "ck_"

// HashAPIKey returns the stored form of an API key. Keys carry 190 bits of
// randomness, so a fast hash is enough: there is nothing to brute-force.
func HashAPIKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// CreateAPIKey creates the team named teamName when it does not exist yet,
// adds a key to it and returns the key. The key is not stored.
func (s *Store) CreateAPIKey(ctx context.Context, teamName string, brandID *string) (string, error) {
	key, err := newAPIKey()
	if err != nil {
		return "", err
	}
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		team := &Team{Name: teamName}
		if _, err := tx.NewInsert().Model(team).On("CONFLICT (name) DO UPDATE SET name = EXCLUDED.name").
			Returning("id").Exec(ctx); err != nil {
			return fmt.Errorf("create team %q: %w", teamName, err)
		}
		k := &APIKey{TeamID: team.ID, BrandID: brandID, KeyHash: HashAPIKey(key), KeyPrefix: key[:len(APIKeyPrefix)+6]}
		if _, err := tx.NewInsert().Model(k).Exec(ctx); err != nil {
			return fmt.Errorf("store api key: %w", err)
		}
		return nil
	})
	return key, err
}

// KeyInfo describes an API key without the key: its ID, team, brand, the
// first characters of the key (enough to recognise it) and when it was
// created and revoked.
type KeyInfo struct {
	ID        uuid.UUID  `bun:"id"`
	Team      string     `bun:"team"`
	BrandID   *string    `bun:"brand_id"`
	Prefix    string     `bun:"key_prefix"`
	CreatedAt time.Time  `bun:"created_at"`
	RevokedAt *time.Time `bun:"revoked_at"`
}

// keyInfos selects KeyInfo rows.
func (s *Store) keyInfos() *bun.SelectQuery {
	return s.db.NewSelect().TableExpr("api_keys AS k").Join("JOIN teams AS t ON t.id = k.team_id").
		ColumnExpr("k.id, t.name AS team, k.brand_id, k.key_prefix, k.created_at, k.revoked_at")
}

// ListAPIKeys returns the keys of the team named teamName, or of every team
// when teamName is "", oldest first.
func (s *Store) ListAPIKeys(ctx context.Context, teamName string) ([]KeyInfo, error) {
	keys := []KeyInfo{}
	q := s.keyInfos()
	if teamName != "" {
		q = q.Where("t.name = ?", teamName)
	}
	if err := q.OrderExpr("k.created_at, k.id").Scan(ctx, &keys); err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	return keys, nil
}

// RevokeAPIKey revokes the key whose ID, or whose whole key, is idOrKey; a
// revoked key authenticates no more. Revoking a revoked key changes
// nothing; an unknown one is ENOTFOUND.
func (s *Store) RevokeAPIKey(ctx context.Context, idOrKey string) (KeyInfo, error) {
	q := s.db.NewUpdate().Table("api_keys").Set("revoked_at = coalesce(revoked_at, now())")
	if id, err := uuid.Parse(idOrKey); err == nil {
		q = q.Where("id = ?", id)
	} else {
		q = q.Where("key_hash = ?", HashAPIKey(idOrKey))
	}
	var ids []uuid.UUID
	if err := q.Returning("id").Scan(ctx, &ids); err != nil {
		return KeyInfo{}, fmt.Errorf("revoke api key: %w", err)
	}
	if len(ids) == 0 {
		return KeyInfo{}, crawl.Errorf(crawl.ENOTFOUND, "no API key %s", redactKey(idOrKey))
	}
	var k KeyInfo
	err := s.keyInfos().Where("k.id = ?", ids[0]).Scan(ctx, &k)
	if err != nil {
		return KeyInfo{}, fmt.Errorf("read revoked api key: %w", err)
	}
	return k, nil
}

// redactKey keeps an API key out of messages: a key shows only its first
// characters; an ID shows whole.
func redactKey(s string) string {
	if strings.HasPrefix(s, APIKeyPrefix) && len(s) > len(APIKeyPrefix)+6 {
		return s[:len(APIKeyPrefix)+6] + "…"
	}
	return s
}

func newAPIKey() (string, error) {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 32)
	for i := range b {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			return "", err
		}
		b[i] = alphabet[n.Int64()]
	}
	return APIKeyPrefix + string(b), nil
}

// Authenticate returns the principal of an API key, or an EUNAUTHORIZED
// error when the key is unknown or revoked.
func (s *Store) Authenticate(ctx context.Context, key string) (Principal, error) {
	var k APIKey
	err := s.db.NewSelect().Model(&k).ColumnExpr("api_key.*").ColumnExpr("team.name AS team_name").
		Join("JOIN teams AS team ON team.id = api_key.team_id").
		Where("api_key.key_hash = ?", HashAPIKey(key)).Where("api_key.revoked_at IS NULL").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return Principal{}, crawl.Errorf(crawl.EUNAUTHORIZED, "invalid API key")
	}
	if err != nil {
		return Principal{}, fmt.Errorf("look up api key: %w", err)
	}
	return Principal{KeyID: k.ID, TeamID: k.TeamID, TeamName: k.TeamName, BrandID: k.BrandID}, nil
}

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
	// TeamName is read with the key (Authenticate), never written.
	TeamName string `bun:"team_name,scanonly"`
}
