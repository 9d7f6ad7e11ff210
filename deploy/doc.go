// Package deploy holds no code: its tests check the deployment files at
// the repository's root (docker-compose.yml, Dockerfile) against what the
// service reads and declares, since no test here can run a Docker engine.
package deploy
