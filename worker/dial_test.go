package worker

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"

	"github.com/durablecrawl/crawler/config"
)

// serverName is the only name on the test servers' certificates: the
// crawler must reach 127.0.0.1 with TEMPORAL_TLS_SERVER_NAME set to it.
const serverName = "temporal.internal"

// testCA is a certificate authority made for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue returns a certificate signed by ca, and its key, as PEM: a
// server certificate for serverName, or a client certificate.
func (ca *testCA) issue(t *testing.T, cn string, server bool) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.DNSNames = []string{serverName}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}

// serverTLS is a server's TLS configuration: its certificate from
// serverCA, and client certificates required and verified against
// clientCA.
func serverTLS(t *testing.T, serverCA, clientCA *testCA) *tls.Config {
	t.Helper()
	certPEM, keyPEM := serverCA.issue(t, serverName, true)
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(clientCA.cert)
	return &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
}

// mtlsEnv is the environment of a crawler that trusts ca and presents a
// client certificate ca issued, as files, to reach addr.
func mtlsEnv(t *testing.T, ca *testCA, addr string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	certPEM, keyPEM := ca.issue(t, "crawler-worker", false)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return map[string]string{
		"TEMPORAL_ADDRESS":                 addr,
		"TEMPORAL_TLS_SERVER_CA_CERT_PATH": write("ca.pem", ca.pem),
		"TEMPORAL_TLS_CLIENT_CERT_PATH":    write("client.pem", certPEM),
		"TEMPORAL_TLS_CLIENT_KEY_PATH":     write("client.key", keyPEM),
		"TEMPORAL_TLS_SERVER_NAME":         serverName,
	}
}

func load(t *testing.T, vars map[string]string) config.Config {
	t.Helper()
	cfg, err := config.LoadFrom(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// handshake runs one TLS handshake between a listener with srv and a
// client with the TLS configuration ClientOptions builds from vars (the
// address added). It returns the client's error, the server's, and the
// common name of the client certificate the server verified.
func handshake(t *testing.T, srv *tls.Config, vars map[string]string) (clientErr, serverErr error, clientCN string) {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	vars["TEMPORAL_ADDRESS"] = ln.Addr().String()
	opts, err := ClientOptions(load(t, vars))
	if err != nil {
		t.Fatal(err)
	}
	if opts.ConnectionOptions.TLS == nil {
		t.Fatal("no TLS configuration")
	}
	type result struct {
		err error
		cn  string
	}
	done := make(chan result, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			done <- result{err: err}
			return
		}
		defer conn.Close()
		tc := conn.(*tls.Conn)
		_ = tc.SetDeadline(time.Now().Add(5 * time.Second))
		if err := tc.Handshake(); err != nil {
			done <- result{err: err}
			return
		}
		// Under TLS 1.3 the client learns that its certificate was refused
		// only when it reads: answer one byte.
		_, _ = tc.Write([]byte{1})
		done <- result{cn: tc.ConnectionState().PeerCertificates[0].Subject.CommonName}
	}()
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", ln.Addr().String(), opts.ConnectionOptions.TLS)
	if err == nil {
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		_, err = conn.Read(make([]byte, 1))
		conn.Close()
	}
	r := <-done
	return err, r.err, r.cn
}

// TestTLSFromConfig: the TLS configuration Dial uses, built from the
// TEMPORAL_TLS_* variables, verifies the server against the configured CA
// and name and presents the client certificate to a server that requires
// one; a server whose certificate comes from another CA is refused, and a
// crawler without a client certificate is refused by the server.
func TestTLSFromConfig(t *testing.T) {
	ca := newCA(t, "crawler test CA")
	t.Run("mutual TLS", func(t *testing.T) {
		clientErr, serverErr, cn := handshake(t, serverTLS(t, ca, ca), mtlsEnv(t, ca, ""))
		if clientErr != nil || serverErr != nil {
			t.Fatalf("handshake: client %v, server %v", clientErr, serverErr)
		}
		if cn != "crawler-worker" {
			t.Errorf("the server saw client certificate %q, want crawler-worker", cn)
		}
	})
	t.Run("server certificate from another CA", func(t *testing.T) {
		other := newCA(t, "another CA")
		clientErr, _, _ := handshake(t, serverTLS(t, other, ca), mtlsEnv(t, ca, ""))
		var unknown x509.UnknownAuthorityError
		if !errors.As(clientErr, &unknown) {
			t.Errorf("client error %v, want x509.UnknownAuthorityError", clientErr)
		}
	})
	t.Run("no client certificate", func(t *testing.T) {
		vars := mtlsEnv(t, ca, "")
		delete(vars, "TEMPORAL_TLS_CLIENT_CERT_PATH")
		delete(vars, "TEMPORAL_TLS_CLIENT_KEY_PATH")
		clientErr, serverErr, _ := handshake(t, serverTLS(t, ca, ca), vars)
		if clientErr == nil || serverErr == nil || !strings.Contains(serverErr.Error(), "certificate") {
			t.Errorf("client %v, server %v; want the server to refuse a client without a certificate", clientErr, serverErr)
		}
	})
}

// TestAPIKeyEnablesTLS: an API key alone turns TLS on (with the system's
// roots) and becomes the credentials; TEMPORAL_TLS=false turns it off.
func TestAPIKeyEnablesTLS(t *testing.T) {
	opts, err := ClientOptions(load(t, map[string]string{"TEMPORAL_API_KEY": "key-123", "TEMPORAL_ADDRESS": "us-east-1.aws.api.temporal.io:7233", "TEMPORAL_NAMESPACE": "my-ns.a1b2c"}))
	if err != nil {
		t.Fatal(err)
	}
	if opts.Credentials == nil || opts.ConnectionOptions.TLS == nil || opts.ConnectionOptions.TLSDisabled {
		t.Errorf("credentials %v, TLS %v (disabled %v); want an API key over TLS", opts.Credentials, opts.ConnectionOptions.TLS, opts.ConnectionOptions.TLSDisabled)
	}
	if opts.ConnectionOptions.TLS != nil && (opts.ConnectionOptions.TLS.RootCAs != nil || opts.ConnectionOptions.TLS.InsecureSkipVerify) {
		t.Error("TLS without a CA setting must verify against the system's roots")
	}
	if opts.HostPort != "us-east-1.aws.api.temporal.io:7233" || opts.Namespace != "my-ns.a1b2c" {
		t.Errorf("host %q namespace %q", opts.HostPort, opts.Namespace)
	}

	opts, err = ClientOptions(load(t, map[string]string{"TEMPORAL_API_KEY": "key-123", "TEMPORAL_TLS": "false"}))
	if err != nil {
		t.Fatal(err)
	}
	if opts.Credentials == nil || opts.ConnectionOptions.TLS != nil || !opts.ConnectionOptions.TLSDisabled {
		t.Errorf("credentials %v, TLS %v (disabled %v); want the API key without TLS", opts.Credentials, opts.ConnectionOptions.TLS, opts.ConnectionOptions.TLSDisabled)
	}

	opts, err = ClientOptions(load(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if opts.Credentials != nil || opts.ConnectionOptions.TLS != nil || opts.HostPort != "127.0.0.1:7233" || opts.Namespace != "default" {
		t.Errorf("defaults: %+v; want plain 127.0.0.1:7233, namespace default, no credentials", opts)
	}
}

// frontend answers the calls client.Dial makes, and records who made
// them.
type frontend struct {
	workflowservice.UnimplementedWorkflowServiceServer
	calls chan call
}

type call struct {
	authorization []string
	clientCN      string
}

func (f *frontend) GetSystemInfo(ctx context.Context, _ *workflowservice.GetSystemInfoRequest) (*workflowservice.GetSystemInfoResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	c := call{authorization: md.Get("authorization")}
	if p, ok := peer.FromContext(ctx); ok {
		if info, ok := p.AuthInfo.(credentials.TLSInfo); ok && len(info.State.PeerCertificates) > 0 {
			c.clientCN = info.State.PeerCertificates[0].Subject.CommonName
		}
	}
	select {
	case f.calls <- c:
	default:
	}
	return &workflowservice.GetSystemInfoResponse{}, nil
}

// TestDialMutualTLSWithAPIKey: Dial reaches a gRPC frontend that requires
// a client certificate, presents the certificate, sends the API key as a
// bearer token, and does not log the key.
func TestDialMutualTLSWithAPIKey(t *testing.T) {
	ca := newCA(t, "crawler test CA")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.Creds(credentials.NewTLS(serverTLS(t, ca, ca))))
	fe := &frontend{calls: make(chan call, 1)}
	workflowservice.RegisterWorkflowServiceServer(srv, fe)
	hs := health.NewServer()
	hs.SetServingStatus("temporal.api.workflowservice.v1.WorkflowService", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(srv, hs)
	go func() { _ = srv.Serve(ln) }()
	defer srv.Stop()

	const key = "tmprl-secret-key-0123456789"
	vars := mtlsEnv(t, ca, ln.Addr().String())
	vars["TEMPORAL_API_KEY"] = key
	var logs bytes.Buffer
	c, err := Dial(load(t, vars), slog.New(slog.NewJSONHandler(&logs, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	select {
	case got := <-fe.calls:
		if len(got.authorization) != 1 || got.authorization[0] != "Bearer "+key {
			t.Errorf("authorization %q, want the API key as a bearer token", got.authorization)
		}
		if got.clientCN != "crawler-worker" {
			t.Errorf("client certificate %q, want crawler-worker", got.clientCN)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Dial made no GetSystemInfo call")
	}
	if strings.Contains(logs.String(), key) || strings.Contains(logs.String(), key[6:]) {
		t.Errorf("the logs hold the API key: %s", logs.String())
	}
	if !strings.Contains(logs.String(), `"tls":true`) || !strings.Contains(logs.String(), `"apiKey":true`) {
		t.Errorf("logs %s; want the connection logged with tls and apiKey true", logs.String())
	}
}
