package frontier

import "github.com/durablecrawl/crawler/robots"

type robotsPolicy = robots.Policy

func parseRobots(body string) robots.Policy {
	return robots.Parse(200, []byte(body), "durablecrawl/test")
}
