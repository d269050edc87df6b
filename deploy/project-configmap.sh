#!/usr/bin/env bash
# Prints a Kubernetes ConfigMap holding a vkm project's files, for
# deploy/kubernetes.yaml: a ConfigMap's keys cannot hold '/', so each file's
# key is its path with '/' written as '__', and the Deployment's volume
# lists which key goes to which path (printed after the ConfigMap, as a
# comment, to paste into the volume's items).
#
#   bash deploy/project-configmap.sh projects/arena vkmd-project > project.yaml
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 PROJECT_DIR CONFIGMAP_NAME" >&2; exit 2; }
dir=${1%/} name=$2
[ -f "$dir/project.toml" ] || { echo "$dir/project.toml: not found: not a project folder" >&2; exit 1; }
mapfile -t files < <(cd "$dir" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
echo "apiVersion: v1"
echo "kind: ConfigMap"
echo "metadata:"
echo "  name: $name"
echo "data:"
for f in "${files[@]}"; do
  echo "  ${f//\//__}: |"
  sed 's/^/    /' "$dir/$f"
  # A file ending without a newline would otherwise join the next key.
  [ -z "$(tail -c1 "$dir/$f")" ] || echo
done
echo "# items:"
for f in "${files[@]}"; do
  echo "#   - {key: ${f//\//__}, path: $f}"
done
