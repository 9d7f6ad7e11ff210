package pagekind

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func TestKind(t *testing.T) {
	cases := []struct {
		name, page string
		want       Kind
	}{
		{"nothing declared", `<html><head><title>A page</title></head><body><p>Text.</p></body></html>`, Unknown},
		{"one product in JSON-LD", `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Mug","offers":{"@type":"Offer","price":"12.00"}}</script>`, Product},
		{"a product in a graph, beside its breadcrumbs", `<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"BreadcrumbList","itemListElement":[{"@type":"ListItem","position":1}]},{"@type":["Product"],"name":"Mug"}]}</script>`, Product},
		{"a product in microdata", `<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Mug</h1><div itemprop="offers" itemscope itemtype="http://schema.org/Offer"></div></div>`, Product},
		{"a product by its Open Graph type", `<meta property="og:type" content="product">`, Product},
		{"a list of products", `<script type="application/ld+json">{"@type":"ItemList","itemListElement":[{"@type":"ListItem","item":{"@type":"Product","name":"A"}},{"@type":"ListItem","item":{"@type":"Product","name":"B"}}]}</script>`, Listing},
		{"products in microdata, several", `<div itemscope itemtype="https://schema.org/Product"></div><div itemscope itemtype="https://schema.org/Product"></div>`, Listing},
		{"a collection page", `<script type="application/ld+json">{"@type":"CollectionPage","name":"Shoes"}</script>`, Listing},
		{"a group of products by Open Graph", `<meta property="og:type" content="product.group">`, Listing},
		{"an article holding a list", `<script type="application/ld+json">[{"@type":"NewsArticle","headline":"Ten things"},{"@type":"ItemList","itemListElement":[]}]</script>`, Article},
		{"a forum thread", `<script type="application/ld+json">{"@type":"DiscussionForumPosting","headline":"Help","comment":[{"@type":"Comment"}]}</script>`, Discussion},
		{"a question page", `<div itemscope itemtype="https://schema.org/QAPage"><div itemprop="mainEntity" itemscope itemtype="https://schema.org/Question"></div></div>`, Discussion},
		{"an article by Open Graph", `<meta property="og:type" content="article">`, Article},
		{"JSON-LD that does not parse", `<script type="application/ld+json">{"@type":"Product",</script>`, Unknown},
	}
	for _, c := range cases {
		doc, err := html.Parse(strings.NewReader(c.page))
		if err != nil {
			t.Fatal(err)
		}
		if got := Read(doc).Kind(); got != c.want {
			t.Errorf("%s: kind %q, want %q", c.name, got, c.want)
		}
	}
}
