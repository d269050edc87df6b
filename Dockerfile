# The vkmd image: a static vkmd in an otherwise empty image, run as a user
# that is not root, serving the project mounted at /project.
#
#   docker build -t vkmd .
#   docker run --rm -p 27960:27960/udp -p 9100:9100 \
#     -v "$PWD/projects/arena:/project:ro" -v "$PWD/secrets:/run/secrets/vkmd:ro" \
#     vkmd /project --key /run/secrets/vkmd/game.key --public 192.0.2.10:27960 \
#       --admin 0.0.0.0:9100 --admin-public
#
# Browsers play through the web listener, in the image of the web target,
# which adds the browser client: `docker build --target web -t vkmd:web .`,
# add `--web 0.0.0.0:8080 --wasm /web/client.wasm` and publish 8080 over
# TCP (the page, signalling) and UDP (WebRTC's one ICE port), `-p 8080:8080
# -p 8080:8080/udp`.
#
# The relay, for servers with no open port (vkmd --relay), is the relay
# target: `docker build --target relay -t vkm-relay .`.
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
# Stripped (-s -w: no symbol table, no DWARF): a panic's trace still names
# each function and line, from the runtime's own tables.
RUN go build -trimpath -ldflags="-s -w" -o /out/vkmd ./cmd/vkmd

# The browser client, for --web, only in the web target (docker build
# --target web): the image has no go toolchain to build it at start, so it
# is built here, by vkmd wasm with the flags --web builds it with, and named
# with --wasm /web/client.wasm (wasm_exec.js beside it, from the same
# toolchain).
FROM build AS wasm
RUN /out/vkmd wasm /out/web/client.wasm

# docker build --target web -t vkmd:web .: the server and the browser client.
FROM scratch AS web
COPY deploy/passwd deploy/group /etc/
COPY --from=build /out/vkmd /vkmd
COPY --from=wasm /out/web /web
USER 65532:65532
VOLUME /project
EXPOSE 27960/udp 9100/tcp 8080/tcp 8080/udp
ENTRYPOINT ["/vkmd"]
CMD ["/project", "--key", "/run/secrets/vkmd/game.key", "--admin", "0.0.0.0:9100", "--admin-public", "--web", "0.0.0.0:8080", "--wasm", "/web/client.wasm"]

# docker build --target relay -t vkm-relay .: the relay (cmd/relay) alone,
# for servers with no open port to register with and their players to
# join by code. Publish its UDP port: docker run --rm -p 27900:27900/udp
# vkm-relay.
FROM build AS relaybuild
RUN go build -trimpath -ldflags="-s -w" -o /out/relay ./cmd/relay

FROM scratch AS relay
COPY deploy/passwd deploy/group /etc/
COPY --from=relaybuild /out/relay /relay
USER 65532:65532
EXPOSE 27900/udp
ENTRYPOINT ["/relay"]
CMD ["--addr", ":27900"]

# The default target: the server alone.
FROM scratch AS server
COPY deploy/passwd deploy/group /etc/
COPY --from=build /out/vkmd /vkmd
USER 65532:65532
VOLUME /project
# The game's UDP port (the project's `port`; arena's is 27960) and the admin
# listener's /healthz, /readyz and /metrics.
EXPOSE 27960/udp 9100/tcp
ENTRYPOINT ["/vkmd"]
# With a key vkmd serves every interface; --public must then name the address
# players reach (the tokens name it), so a real run gives its own arguments.
CMD ["/project", "--key", "/run/secrets/vkmd/game.key", "--admin", "0.0.0.0:9100", "--admin-public"]
