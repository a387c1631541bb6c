#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Independent checks of a pcap file written by the emulator's tap (used by pcap.sh).

Reads the classic pcap format itself and recomputes every RoCE frame's ICRC with Python's zlib.crc32, following
the InfiniBand specification (Annex A16/A17): CRC-32 over 8 bytes of ones standing for the LRH, the IP header
(IPv4: TOS, TTL, checksum set to ones; IPv6 or RoCE v1 GRH: traffic class, flow label, hop limit set to ones),
the UDP header with its checksum set to ones (RoCE v2), the BTH with its reserved byte 4 set to ones, and the rest
of the packet; the ICRC is the CRC stored least significant byte first. Prints one line per frame:
'<index> <ethertype> icrc-ok' and exits 1 on any mismatch or malformed file.

Before reading the file the checker checks itself on a packet captured on a real ConnectX-4 Lx (a RoCE v2 CNP,
published in Scapy's test/contrib/roce.uts as "RoCE CNP captured on ConnectX-4 Lx")."""
import struct
import sys
import zlib


CX4LX_CNP = bytes.fromhex(
    "e41d2dab2bc27cfe90643b32080045c2"
    "003c718c4000401191610a0011010a00"
    "1201000012b700280000" "8100ffff4000"
    "01180000000000000000000000000000"
    "00000000000082fd002a")


def icrc_ok(f):
    """None when f is not RoCE, else whether its ICRC is right."""
    et = struct.unpack(">H", f[12:14])[0]
    if et == 0x8915:  # RoCE v1: GRH then BTH
        hdr = bytearray(f[14:14 + 40 + 12])
        hdr[0] |= 0x0F
        hdr[1:4] = b"\xff\xff\xff"
        hdr[7] = 0xFF
        hdr[40 + 4] = 0xFF
        rest = f[14 + 52:-4]
    elif et in (0x86DD, 0x0800):
        iplen = 40 if et == 0x86DD else (f[14] & 0xF) * 4
        udp = 14 + iplen
        if struct.unpack(">H", f[udp + 2:udp + 4])[0] != 4791:
            return None  # not RoCE: raw Ethernet traffic
        hdr = bytearray(f[14:udp + 8 + 12])
        if et == 0x86DD:
            hdr[0] |= 0x0F
            hdr[1:4] = b"\xff\xff\xff"
            hdr[7] = 0xFF
        else:
            hdr[1] = 0xFF
            hdr[8] = 0xFF
            hdr[10:12] = b"\xff\xff"
        hdr[iplen + 6:iplen + 8] = b"\xff\xff"
        hdr[iplen + 8 + 4] = 0xFF
        rest = f[udp + 8 + 12:-4]
    else:
        return None
    crc = zlib.crc32(b"\xff" * 8 + bytes(hdr) + rest) & 0xFFFFFFFF
    return crc == struct.unpack("<I", f[-4:])[0]


def main(path):
    if len(CX4LX_CNP) != 74 or icrc_ok(CX4LX_CNP) is not True:
        print("the checker does not reproduce the ConnectX-4 Lx ICRC")
        return 1
    data = open(path, "rb").read()
    magic, vmaj, vmin, _, _, snap, link = struct.unpack("<IHHiIII", data[:24])
    if magic not in (0xA1B2C3D4, 0xA1B23C4D) or (vmaj, vmin) != (2, 4) or link != 1:
        print("bad pcap header", hex(magic), vmaj, vmin, link)
        return 1
    off, n, bad = 24, 0, 0
    while off < len(data):
        _, _, incl, orig = struct.unpack("<IIII", data[off:off + 16])
        f = data[off + 16:off + 16 + incl]
        off += 16 + incl
        if len(f) != incl or incl != orig:
            print("truncated record", n)
            return 1
        ok = icrc_ok(f)
        if ok is not None:
            bad += not ok
            print(n, hex(struct.unpack(">H", f[12:14])[0]), "icrc-ok" if ok else "icrc-BAD")
        n += 1
    return 1 if bad or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
