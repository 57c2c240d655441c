#!/usr/bin/env bash
# Installs, once, what test/deploy/helm.test.ts checks the Helm chart with,
# into ~/.cache/catalogue-api/ (kept between runs; a pinned version that
# differs from what is there is installed again):
#   bin/helm                        Helm, built from its Go module (go install)
#   kubernetes-validate-venv/       kubernetes-validate (PyPI): the JSON schemas of every Kubernetes release
#   cnpg-crds/                      CloudNativePG's CustomResourceDefinitions (Cluster, Pooler), from its Go module
# .ci/run runs it; run it by hand before the test on a new machine (or let the
# test skip itself locally). Needs Go (the machine's /usr/local/go) and python3 with venv.
set -euo pipefail

HELM_VERSION=v3.22.0
KUBERNETES_VALIDATE_VERSION=1.37.0
CNPG_VERSION=v1.27.0

cache="${HOME}/.cache/catalogue-api"
mkdir -p "$cache/bin"
export PATH="$PATH:/usr/local/go/bin"

# A build from the module proxy reports only v3.22: the version built is kept beside it.
if [ ! -x "$cache/bin/helm" ] || [ "$(cat "$cache/bin/helm.version" 2>/dev/null)" != "$HELM_VERSION" ]; then
  command -v go >/dev/null || { echo "kube-tools: Go is needed to build helm (the machine's /usr/local/go; Debian's golang-go is too old)" >&2; exit 1; }
  echo "kube-tools: building helm ${HELM_VERSION} into ${cache}/bin (a few minutes, once)"
  GOBIN="$cache/bin" GOFLAGS=-modcacherw go install "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}"
  echo "$HELM_VERSION" > "$cache/bin/helm.version"
fi

venv="$cache/kubernetes-validate-venv"
if [ "$("$venv/bin/python" -c 'import kubernetes_validate; print(kubernetes_validate.__version__)' 2>/dev/null)" != "$KUBERNETES_VALIDATE_VERSION" ]; then
  echo "kube-tools: installing kubernetes-validate ${KUBERNETES_VALIDATE_VERSION} in ${venv}"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "kubernetes-validate==${KUBERNETES_VALIDATE_VERSION}"
fi

crds="$cache/cnpg-crds"
if [ "$(cat "$crds/VERSION" 2>/dev/null)" != "$CNPG_VERSION" ]; then
  command -v go >/dev/null || { echo "kube-tools: Go is needed to fetch CloudNativePG's CRDs" >&2; exit 1; }
  echo "kube-tools: fetching CloudNativePG ${CNPG_VERSION}'s CRDs into ${crds}"
  dir=$(GOFLAGS=-modcacherw go mod download -json "github.com/cloudnative-pg/cloudnative-pg@${CNPG_VERSION}" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
  rm -rf "$crds" && mkdir -p "$crds"
  cp "$dir/config/crd/bases/postgresql.cnpg.io_clusters.yaml" "$dir/config/crd/bases/postgresql.cnpg.io_poolers.yaml" "$crds/"
  echo "$CNPG_VERSION" > "$crds/VERSION"
fi

echo "kube-tools: helm ${HELM_VERSION}, kubernetes-validate ${KUBERNETES_VALIDATE_VERSION}, CloudNativePG CRDs ${CNPG_VERSION}"
