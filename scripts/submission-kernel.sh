#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# scripts/submission-kernel.sh ROOT RELEASE OUT_DIR
#
# A Debian kernel unpacked under ROOT (rtlab kernel fetch puts it in the
# kernel cache: ROOT/boot/vmlinuz-RELEASE, ROOT/lib/modules/RELEASE/) as
# a developer submits a built kernel (docs/farm.md): OUT_DIR/bzImage,
# OUT_DIR/config and OUT_DIR/modules.tar holding the modules the virtual
# board loads (virtio and its console), well under the server's upload
# limit where the whole package is not.
set -eu
root=$1 rel=$2 out=$3
mods=lib/modules/$rel
mkdir -p "$out"
(cd "$root" && tar -cf "$out/modules.tar" $mods/modules.builtin \
	$mods/modules.order $mods/modules.builtin.modinfo \
	$mods/kernel/drivers/virtio/virtio.ko \
	$mods/kernel/drivers/virtio/virtio_ring.ko \
	$mods/kernel/drivers/virtio/virtio_pci.ko \
	$mods/kernel/drivers/virtio/virtio_pci_legacy_dev.ko \
	$mods/kernel/drivers/virtio/virtio_pci_modern_dev.ko \
	$mods/kernel/drivers/char/virtio_console.ko)
cp "$root/boot/vmlinuz-$rel" "$out/bzImage"
cp "$root/boot/config-$rel" "$out/config"
