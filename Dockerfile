# The vkmd image: a static vkmd in an otherwise empty image, run as a user
# that is not root, serving the project mounted at /project.
#
#   docker build -t vkmd .
#   docker run --rm -p 27960:27960/udp -p 9100:9100 \
#     -v "$PWD/projects/arena:/project:ro" -v "$PWD/secrets:/run/secrets/vkmd:ro" \
#     vkmd /project --key /run/secrets/vkmd/game.key --public 192.0.2.10:27960 \
#       --admin 0.0.0.0:9100 --admin-public
#
# Browsers play through the web listener: add `--web 0.0.0.0:8080 --wasm
# /web/client.wasm` and publish 8080 over TCP (the page, signalling) and UDP
# (WebRTC's one ICE port), `-p 8080:8080 -p 8080:8080/udp`.
#
# Where no registry can be reached, deploy/Containerfile builds the same final
# image from a binary built on the host; or --build-arg GO_IMAGE=... names a
# local image with the Go toolchain. docs/operating.md, "Deploying", has the rest.
ARG GO_IMAGE=golang:1.26
FROM ${GO_IMAGE} AS build
WORKDIR /src
ENV CGO_ENABLED=0
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN go build -trimpath -ldflags=-s -o /out/vkmd ./cmd/vkmd
# The browser client, for --web: the image has no go toolchain to build it
# at start, so it is built here and named with --wasm /web/client.wasm
# (wasm_exec.js beside it, from the same toolchain).
RUN mkdir -p /out/web && GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o /out/web/client.wasm ./cmd/webclient && \
    cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" /out/web/

FROM scratch
COPY deploy/passwd deploy/group /etc/
COPY --from=build /out/vkmd /vkmd
COPY --from=build /out/web /web
USER 65532:65532
VOLUME /project
# The game's UDP port (the project's `port`; arena's is 27960) and the admin
# listener's /healthz, /readyz and /metrics.
EXPOSE 27960/udp 9100/tcp
ENTRYPOINT ["/vkmd"]
# With a key vkmd serves every interface; --public must then name the address
# players reach (the tokens name it), so a real run gives its own arguments.
CMD ["/project", "--key", "/run/secrets/vkmd/game.key", "--admin", "0.0.0.0:9100", "--admin-public"]
