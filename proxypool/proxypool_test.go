package proxypool

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	ps, err := Parse(" basic=http://p1:3128 http://p2:3128 ; stealth@de=http://user:secret@de.example:8080;stealth=https://s.example:443 ")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ps.Names(), ","); got != "basic,stealth,stealth@DE" {
		t.Errorf("Names = %s", got)
	}
	basic := ps.Get(Basic, "")
	if basic.Len() != 2 || basic.Next().Host != "p1:3128" || basic.Next().Host != "p2:3128" || basic.Next().Host != "p1:3128" {
		t.Error("the basic pool does not rotate")
	}
	if de := ps.Get(Stealth, "de"); de == nil || de.Next().User.Username() != "user" {
		t.Errorf("stealth@DE: %+v", de)
	}
	if ps.Get(Enhanced, "") != nil || ps.Get(Basic, "FR") != nil {
		t.Error("a pool that is not there was found")
	}
	var none *Pools
	if none.Get(Basic, "") != nil || none.Names() != nil {
		t.Error("no pools")
	}
	if empty, err := Parse(""); err != nil || len(empty.Names()) != 0 {
		t.Errorf("an empty spec: %v %v", empty, err)
	}
	for _, bad := range []string{"basic", "turbo=http://p:1", "basic@DEU=http://p:1", "basic=", "basic=ftp://p:1", "basic=http://p:1/path",
		"stealth=http://user:secret@:1"} {
		_, err := Parse(bad)
		if err == nil {
			t.Errorf("Parse(%q) took it", bad)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("Parse(%q)'s error shows the password: %v", bad, err)
		}
	}
}
