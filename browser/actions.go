package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/durablecrawl/crawler/pageaction"
)

// Bounds of what page actions may take and keep.
const (
	// findTimeout bounds the wait for an element a click or a scroll
	// aims at, and a wait for a selector.
	findTimeout = 15 * time.Second
	// maxReturnBytes bounds what one script returns, as JSON.
	maxReturnBytes = 1 << 20
	// maxActionBytes bounds what one page's actions keep in all
	// (screenshots, PDFs, scrapes, returns): past it an action fails.
	maxActionBytes = 48 << 20
)

// runActions runs the page's actions in order on t's page, which has
// loaded and settled, and returns what they gave back. The first action
// that cannot be done ends the run with a *pageaction.Failed; a context
// done ends it with the context's error.
func (s *Session) runActions(ctx context.Context, t *tab, list []pageaction.Action) (*pageaction.Results, error) {
	res := &pageaction.Results{}
	for i, a := range list {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if err := s.runAction(ctx, t, a, res); err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			return res, &pageaction.Failed{Index: i, Action: a, Reason: reason(err)}
		}
		if res.Bytes() > maxActionBytes {
			return res, &pageaction.Failed{Index: i, Action: a, Reason: fmt.Sprintf("the page's actions kept more than %d MB", maxActionBytes>>20)}
		}
	}
	// What the last action set off (a click that loads more) is read
	// once the page's network is quiet again.
	t.quiet(s.b.opts.SettleTimeout)
	return res, nil
}

// reason words err, a driver's error, for a failed action's message.
func reason(err error) string {
	msg := err.Error()
	if errors.Is(err, playwright.ErrTimeout) || strings.Contains(msg, "Timeout") && strings.Contains(msg, "exceeded") {
		return "timed out"
	}
	// The driver's messages carry a call log after the first line.
	if i := strings.Index(msg, "\n"); i > 0 {
		msg = msg[:i]
	}
	return strings.TrimSpace(msg)
}

// errNoElement is an action's aim that matched nothing.
type errNoElement string

func (e errNoElement) Error() string {
	return fmt.Sprintf("no element matches the selector %q", string(e))
}

// runAction runs one action, adding what it gives back to res.
func (s *Session) runAction(ctx context.Context, t *tab, a pageaction.Action, res *pageaction.Results) error {
	p := t.page
	ms := func(d time.Duration) *float64 { return playwright.Float(float64(d / time.Millisecond)) }
	switch a.Type {
	case pageaction.Wait:
		if a.Selector != "" {
			err := p.Locator(a.Selector).First().WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateVisible, Timeout: ms(findTimeout)})
			if errors.Is(err, playwright.ErrTimeout) {
				return fmt.Errorf("no element matching the selector %q showed within %s", a.Selector, findTimeout)
			}
			return err
		}
		select {
		case <-time.After(time.Duration(a.Milliseconds) * time.Millisecond):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	case pageaction.Click:
		loc := p.Locator(a.Selector)
		if err := loc.First().WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateAttached, Timeout: ms(findTimeout)}); err != nil {
			if errors.Is(err, playwright.ErrTimeout) {
				return errNoElement(a.Selector)
			}
			return err
		}
		if !a.All {
			return loc.First().Click(playwright.LocatorClickOptions{Timeout: ms(findTimeout)})
		}
		all, err := loc.All()
		if err != nil {
			return err
		}
		for _, el := range all {
			if err := el.Click(playwright.LocatorClickOptions{Timeout: ms(findTimeout)}); err != nil {
				return err
			}
		}
		return nil
	case pageaction.Write:
		return p.Keyboard().Type(a.Text)
	case pageaction.Press:
		return p.Keyboard().Press(a.Key)
	case pageaction.Scroll:
		return scroll(p, a, ms(findTimeout))
	case pageaction.Screenshot:
		img, err := s.shoot(p, a.FullPage, a.Quality, a.Viewport)
		if err != nil {
			return err
		}
		res.Screenshots = append(res.Screenshots, img)
		return nil
	case pageaction.Scrape:
		html, err := p.Content()
		if err != nil {
			return err
		}
		res.Scrapes = append(res.Scrapes, pageaction.Scraped{URL: p.URL(), HTML: html})
		return nil
	case pageaction.ExecuteJavascript:
		ret, err := execute(p, a.Script)
		if err != nil {
			return err
		}
		res.JavascriptReturns = append(res.JavascriptReturns, ret)
		return nil
	case pageaction.PDF:
		pdf, err := p.PDF(playwright.PagePdfOptions{Format: playwright.String(a.Format), Landscape: playwright.Bool(a.Landscape),
			Scale: playwright.Float(a.Scale), PrintBackground: playwright.Bool(true)})
		if err != nil {
			return err
		}
		res.PDFs = append(res.PDFs, pdf)
		return nil
	}
	return fmt.Errorf("%q is not an action", a.Type)
}

// scrollScript scrolls the page, or the element given, by a screen (or
// the element's own height) up or down; an element that does not scroll
// is brought into view instead.
const scrollScript = `([el, up]) => {
	const sign = up ? -1 : 1;
	if (!el) { window.scrollBy(0, sign * window.innerHeight); return; }
	const before = el.scrollTop;
	el.scrollBy(0, sign * (el.clientHeight || window.innerHeight));
	if (el.scrollTop === before) el.scrollIntoView({block: up ? 'start' : 'end'});
}`

// scroll runs a scroll action on p.
func scroll(p playwright.Page, a pageaction.Action, timeout *float64) error {
	up := a.Direction == "up"
	if a.Selector == "" {
		_, err := p.Evaluate(scrollScript, []any{nil, up})
		return err
	}
	loc := p.Locator(a.Selector).First()
	if err := loc.WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateAttached, Timeout: timeout}); err != nil {
		if errors.Is(err, playwright.ErrTimeout) {
			return errNoElement(a.Selector)
		}
		return err
	}
	_, err := loc.Evaluate(`(el, up) => (`+scrollScript+`)([el, up])`, up)
	return err
}

// shoot takes a screenshot of p as a JPEG (quality 0: the default), of
// the viewport or the whole page, at a viewport of its own when one is
// given (the page's is put back after).
func (s *Session) shoot(p playwright.Page, full bool, quality int, vp *pageaction.Viewport) ([]byte, error) {
	if quality <= 0 {
		quality = screenshotQuality
	}
	if vp != nil {
		old := p.ViewportSize()
		if err := p.SetViewportSize(vp.Width, vp.Height); err != nil {
			return nil, err
		}
		if old != nil {
			defer func() { _ = p.SetViewportSize(old.Width, old.Height) }()
		}
	}
	img, err := p.Screenshot(playwright.PageScreenshotOptions{FullPage: playwright.Bool(full),
		Type: playwright.ScreenshotTypeJpeg, Quality: playwright.Int(quality),
		Timeout: playwright.Float(float64(s.b.opts.NavTimeout / time.Millisecond))})
	if err != nil {
		return nil, err
	}
	if len(img) > MaxScreenshotBytes {
		return nil, fmt.Errorf("the screenshot takes %d bytes, more than the %d kept", len(img), MaxScreenshotBytes)
	}
	return img, nil
}

// runScript runs a caller's script in the page and answers its value
// with its JavaScript type. The script is run as a program (its last
// expression is its value, as in a console) or, when it returns, as the
// body of an async function; a promise is awaited.
const runScript = `async (src) => {
	let value;
	try {
		value = await (0, eval)(src);
	} catch (e) {
		if (!(e instanceof SyntaxError)) throw e;
		const AsyncFunction = (async () => {}).constructor;
		value = await new AsyncFunction(src)();
	}
	let type = typeof value;
	if (value === null) type = 'null';
	try {
		return {type, value: value === undefined ? null : JSON.parse(JSON.stringify(value) ?? 'null')};
	} catch (e) {
		return {type, value: String(value)};
	}
}`

// execute runs an executeJavascript action's script in p.
func execute(p playwright.Page, script string) (pageaction.Return, error) {
	v, err := p.Evaluate(runScript, script)
	if err != nil {
		return pageaction.Return{}, fmt.Errorf("the script threw: %s", firstLine(err.Error()))
	}
	m, _ := v.(map[string]any)
	typ, _ := m["type"].(string)
	value, err := json.Marshal(m["value"])
	if err != nil {
		return pageaction.Return{}, fmt.Errorf("the script's value cannot be kept: %w", err)
	}
	if len(value) > maxReturnBytes {
		return pageaction.Return{}, fmt.Errorf("the script returned %d bytes of JSON, more than the %d kept", len(value), maxReturnBytes)
	}
	return pageaction.Return{Type: typ, Value: value}, nil
}

func firstLine(s string) string {
	if i := strings.Index(s, "\n"); i > 0 {
		return s[:i]
	}
	return s
}
