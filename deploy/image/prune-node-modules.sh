#!/bin/sh
# Drops the native binaries of other platforms that npm packages ship side by side (onnxruntime-node:
# darwin, win32 and the other Linux architecture; tokenizers: every non-Linux build): ~250 MB less.
set -eu
NM=${1:-node_modules}
case "$(uname -m)" in x86_64) other=arm64 ;; aarch64) other=x64 ;; *) other=none ;; esac
rm -rf "$NM"/onnxruntime-node/bin/napi-v*/darwin "$NM"/onnxruntime-node/bin/napi-v*/win32 "$NM"/onnxruntime-node/bin/napi-v*/linux/"$other"
find "$NM"/tokenizers -maxdepth 1 -name 'tokenizers.*.node' ! -name 'tokenizers.linux-*-gnu.node' -delete
