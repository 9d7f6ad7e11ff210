package api

import "github.com/gofiber/fiber/v2"

// meJSON is who an API key stands for: GET /me.
type meJSON struct {
	KeyID   string   `json:"keyId"`
	Team    teamJSON `json:"team"`
	BrandID *string  `json:"brandId"`
}

type teamJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// me answers GET /me: the key's ID, team and brand (the console shows the
// team a person signed in as).
func (s *server) me(c *fiber.Ctx) error {
	p := principal(c)
	return c.JSON(meJSON{KeyID: p.KeyID.String(), Team: teamJSON{ID: p.TeamID.String(), Name: p.TeamName}, BrandID: p.BrandID})
}
