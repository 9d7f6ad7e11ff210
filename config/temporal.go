package config

import (
	"fmt"
	"os"
	"strings"

	"go.temporal.io/sdk/contrib/envconfig"
)

// temporalVariables are the variables of Temporal's client configuration
// convention (the one its CLI and SDKs share) that the crawler honours.
// Not read: TEMPORAL_CODEC_* (a remote codec is for the UI and CLI; a
// worker must not call one for every replayed payload) and
// TEMPORAL_GRPC_META_* (naming them would need the whole environment,
// which LoadFrom's getenv cannot list; a profile's grpc_meta still
// applies).
var temporalVariables = map[string]bool{
	"TEMPORAL_ADDRESS": true, "TEMPORAL_NAMESPACE": true, "TEMPORAL_API_KEY": true,
	"TEMPORAL_CLIENT_AUTHORITY": true, "TEMPORAL_TLS": true,
	"TEMPORAL_TLS_CLIENT_CERT_PATH": true, "TEMPORAL_TLS_CLIENT_CERT_DATA": true,
	"TEMPORAL_TLS_CLIENT_KEY_PATH": true, "TEMPORAL_TLS_CLIENT_KEY_DATA": true,
	"TEMPORAL_TLS_SERVER_CA_CERT_PATH": true, "TEMPORAL_TLS_SERVER_CA_CERT_DATA": true,
	"TEMPORAL_TLS_SERVER_NAME": true, "TEMPORAL_TLS_DISABLE_HOST_VERIFICATION": true,
}

// envLookup shows envconfig the environment through the reader, and only
// the variables in temporalVariables; it remembers what it was given so
// that loadTemporal can check values envconfig would silently ignore.
type envLookup struct {
	r    *reader
	seen map[string]string
}

// Environ lists nothing: see temporalVariables.
func (e envLookup) Environ() []string { return nil }

// LookupEnv treats an empty variable as unset, like every other variable
// of the crawler.
func (e envLookup) LookupEnv(key string) (string, bool) {
	if !temporalVariables[key] {
		return "", false
	}
	v := e.r.str(key, "")
	if v != "" {
		e.seen[key] = v
	}
	return v, v != ""
}

// loadTemporal reads the Temporal connection: a profile of a Temporal
// configuration file when TEMPORAL_CONFIG_FILE or TEMPORAL_PROFILE is
// set (no file is read otherwise, so an operator's personal CLI profile
// never redirects a service that names none), then the TEMPORAL_*
// variables over it, then the crawler's defaults for address and
// namespace. The returned errors never contain the API key.
func loadTemporal(r *reader) (envconfig.ClientConfigProfile, error) {
	file := r.str("TEMPORAL_CONFIG_FILE", "")
	profile := r.str("TEMPORAL_PROFILE", "")
	if file != "" {
		if _, err := os.Stat(file); err != nil {
			return envconfig.ClientConfigProfile{}, fmt.Errorf("TEMPORAL_CONFIG_FILE: %w", err)
		}
	}
	env := envLookup{r: r, seen: map[string]string{}}
	p, err := envconfig.LoadClientConfigProfile(envconfig.LoadClientConfigProfileOptions{
		ConfigFilePath:    file,
		ConfigFileProfile: profile,
		DisableFile:       file == "" && profile == "",
		EnvLookup:         env,
	})
	if err != nil {
		return envconfig.ClientConfigProfile{}, fmt.Errorf("temporal client configuration (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE): %w", err)
	}
	for _, name := range []string{"TEMPORAL_TLS", "TEMPORAL_TLS_DISABLE_HOST_VERIFICATION"} {
		if v, ok := env.seen[name]; ok {
			switch strings.ToLower(v) {
			case "1", "0", "true", "false":
			default:
				return envconfig.ClientConfigProfile{}, fmt.Errorf("%s: %q is not one of true, false, 1, 0", name, v)
			}
		}
	}
	if p.Address == "" {
		p.Address = "127.0.0.1:7233"
	}
	if p.Namespace == "" {
		p.Namespace = "default"
	}
	// Load the certificates now, so that a wrong path or PEM block is a
	// configuration error at start-up rather than a failed dial.
	if _, err := p.ToClientOptions(envconfig.ToClientOptionsRequest{}); err != nil {
		return envconfig.ClientConfigProfile{}, fmt.Errorf("temporal TLS settings (TEMPORAL_TLS_*): %w", err)
	}
	return p, nil
}
