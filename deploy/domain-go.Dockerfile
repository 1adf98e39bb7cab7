# syntax=docker/dockerfile:1
# The Go domain service on its own, for the domain-go container of
# deploy/kubernetes/deployment.yaml and deploy/docker-compose.yml:
#   docker build -f deploy/domain-go.Dockerfile -t ghcr.io/cogworks/cogworks-domain-go .
# Unlike the cogworks image (distroless, no toolchain) it carries the Go
# toolchain, which it runs on generated code; it holds no CogWorks secret.
FROM golang:1.26 AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN go build -trimpath -ldflags "-s -w" -o /out/cogworks-domain-go ./cmd/cogworks-domain-go

FROM golang:1.26
COPY --from=build /out/cogworks-domain-go /usr/local/bin/
ENV GOTOOLCHAIN=local
# Owned by the service's uid so that a fresh named volume mounted here
# (docker-compose.yml) lets it create its socket.
RUN mkdir -p /run/cogworks-domain /scratch && chown 65532:65532 /run/cogworks-domain /scratch
USER 65532:65532
WORKDIR /scratch
ENTRYPOINT ["/usr/local/bin/cogworks-domain-go"]
CMD ["serve", "--socket", "/run/cogworks-domain/go.sock"]
