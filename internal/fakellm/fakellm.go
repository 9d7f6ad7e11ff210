// Package fakellm is an OpenAI-compatible chat-completions server for
// tests: real HTTP, answers decided by the test, every call recorded.
package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Call is one request the server received.
type Call struct {
	Model     string
	System    string
	User      string
	MaxTokens int
	// Auth is the request's Authorization header.
	Auth string
	// Status is what the server answered.
	Status int
}

// Reply is the server's answer to a call. A Status other than 200 sends
// an OpenAI-style error body.
type Reply struct {
	Status     int
	Content    string
	Delay      time.Duration
	RetryAfter string
}

// Server records calls and answers them with Respond.
type Server struct {
	*httptest.Server
	mu    sync.Mutex
	calls []Call
	// Respond decides the answer to the n-th call (from 0).
	respond func(c Call, n int) Reply
}

// New starts a server that answers with respond.
func New(respond func(c Call, n int) Reply) *Server {
	s := &Server{respond: respond}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the base URL to give an OpenAI client (it ends in /v1).
func (s *Server) BaseURL() string { return s.Server.URL + "/v1" }

// Calls returns the calls so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

func (m message) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model               string    `json:"model"`
		Messages            []message `json:"messages"`
		MaxTokens           int       `json:"max_tokens"`
		MaxCompletionTokens int       `json:"max_completion_tokens"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c := Call{Model: req.Model, MaxTokens: max(req.MaxTokens, req.MaxCompletionTokens), Auth: r.Header.Get("Authorization")}
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			c.System += m.text()
		case "user":
			c.User += m.text()
		}
	}
	s.mu.Lock()
	n := len(s.calls)
	s.calls = append(s.calls, c)
	s.mu.Unlock()

	reply := s.respond(c, n)
	if reply.Status == 0 {
		reply.Status = http.StatusOK
	}
	s.mu.Lock()
	s.calls[n].Status = reply.Status
	s.mu.Unlock()
	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if reply.RetryAfter != "" {
		w.Header().Set("Retry-After", reply.RetryAfter)
	}
	w.WriteHeader(reply.Status)
	if reply.Status != http.StatusOK {
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"message": fmt.Sprintf("test server answers %d", reply.Status), "type": "test_error"}})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": reply.Content}}},
		"usage": map[string]any{"prompt_tokens": len(c.User) / 4, "completion_tokens": len(reply.Content) / 4,
			"total_tokens": (len(c.User) + len(reply.Content)) / 4},
	})
}
