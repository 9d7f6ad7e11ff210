package api

import (
	"regexp"

	"github.com/gofiber/fiber/v2"

	"github.com/durablecrawl/crawler/crawl"
)

// screenshotToken is what a screenshot's token looks like: 32 hex digits.
var screenshotToken = regexp.MustCompile(`^[0-9a-f]{32}$`)

// screenshot handles GET /screenshots/{token}: a page's screenshot, to
// whoever has its URL (the page's screenshot format gives it), as
// Firecrawl's screenshot URLs are.
func (s *server) screenshot(c *fiber.Ctx) error {
	token := c.Params("token")
	if !screenshotToken.MatchString(token) {
		return crawl.Errorf(crawl.ENOTFOUND, "no such screenshot")
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	sh, err := s.Store.ScreenshotByToken(ctx, token)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, sh.ContentType)
	c.Set(fiber.HeaderCacheControl, "private, max-age=86400, immutable")
	return c.Send(sh.Data)
}
