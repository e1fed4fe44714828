#!/usr/bin/env bash
# Install what the on-target tests need (helia_aot.testing.cross): the arm-none-eabi GCC with
# newlib and QEMU for Arm, and cmake for the module-type build tests, from the distribution's
# packages (Debian 12 / Ubuntu 22.04 or newer). Under CI a missing tool fails its tests rather
# than skipping them, so every tool a test marks is installed here.
# Does nothing, silently, when arm-none-eabi-gcc, its newlib, qemu-system-arm and cmake are present.
# Needs root or sudo otherwise; waits while another apt/dpkg holds the package lock.
set -euo pipefail

PACKAGES=(gcc-arm-none-eabi binutils-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm cmake)

have_toolchain() {
    command -v arm-none-eabi-gcc >/dev/null 2>&1 && command -v qemu-system-arm >/dev/null 2>&1 || return 1
    command -v cmake >/dev/null 2>&1 || return 1
    # newlib is a package of its own: a compiler without it cannot link the test programs.
    case "$(arm-none-eabi-gcc --specs=nano.specs -print-file-name=libc_nano.a 2>/dev/null)" in
        /*) return 0 ;;
        *) return 1 ;;
    esac
}

have_toolchain && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_cross_toolchain.sh: no apt-get here; install ${PACKAGES[*]} (or equivalents) by hand" >&2
    exit 1
fi
SUDO=()
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "install_cross_toolchain.sh: run as root or install sudo" >&2; exit 1; }
    SUDO=(sudo)
fi

# Run apt-get, retrying for up to 10 minutes while another process holds the dpkg or lists lock
# (unattended upgrades on a fresh CI machine, a parallel setup); any other failure is final.
apt_get() {
    local log attempt
    log=$(mktemp)
    for attempt in $(seq 1 120); do
        if "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=30 "$@" >"$log" 2>&1; then
            rm -f "$log"
            return 0
        fi
        if ! grep -qiE 'could not get lock|unable to acquire|is another process using it' "$log"; then
            cat "$log" >&2
            rm -f "$log"
            return 1
        fi
        [ "$attempt" = 1 ] && echo "install_cross_toolchain.sh: waiting for the package lock..." >&2
        sleep 5
    done
    cat "$log" >&2
    rm -f "$log"
    return 1
}

echo "install_cross_toolchain.sh: installing ${PACKAGES[*]}" >&2
apt_get update
apt_get install -y --no-install-recommends "${PACKAGES[@]}"
have_toolchain || { echo "install_cross_toolchain.sh: toolchain still incomplete after install" >&2; exit 1; }
