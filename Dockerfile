# capkg's container image: the static capkg binary with what release jobs run beside it: kubectl
# (`kubectl kustomize` components commands), git (the tag checks) and CA certificates; non-root.
# The binary is the release's own, not compiled here: scripts/image-context.sh unpacks dist's
# musl archives to target/image/linux/<arch>/ first (README, "Container image").

FROM alpine:3.22
ARG TARGETPLATFORM
ARG CAPKG_VERSION=dev
LABEL org.opencontainers.image.title="capkg" \
      org.opencontainers.image.description="Lint, substitute, assemble and publish Cluster API provider releases" \
      org.opencontainers.image.source="https://github.com/capkg/capkg" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${CAPKG_VERSION}"
# Alpine's branch pins these (apk checks their signatures); a rebuild takes its security fixes.
# CI checkouts belong to another user than the image's, and git refuses such a repository unless
# it is marked safe.
# hadolint ignore=DL3018
RUN apk add --no-cache ca-certificates git kubectl \
    && adduser -D -u 10001 -h /home/capkg capkg \
    && git config --system --add safe.directory '*'
COPY target/image/${TARGETPLATFORM}/capkg /usr/local/bin/capkg
USER 10001:10001
WORKDIR /home/capkg
ENTRYPOINT ["capkg"]
CMD ["--help"]
