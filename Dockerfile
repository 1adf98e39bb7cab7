# syntax=docker/dockerfile:1
# CogWorks container image built from source:
#   docker build -t cogworks .
#   docker run --rm -e COGWORKS_GITHUB_TOKEN -e COGWORKS_LLM_API_KEY \
#     -v "$PWD:/work" cogworks process-all --repo owner/name --workspace /work
# Releases build the same image from the released binaries with
# Dockerfile.release (GoReleaser dockers_v2).
FROM golang:1.26 AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/cogworks ./cmd/cogworks \
 && go build -trimpath -ldflags "-s -w" -o /out/cogworks-domain-go ./cmd/cogworks-domain-go

# Static binaries on distroless: no shell, no package manager, uid 65532.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/cogworks /out/cogworks-domain-go /usr/local/bin/
USER nonroot:nonroot
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/cogworks"]
CMD ["--help"]
