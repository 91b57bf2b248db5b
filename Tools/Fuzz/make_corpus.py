#!/usr/bin/env python3
"""Seed corpora for vtk's fuzz targets, made at corpus-build time (nothing here is copied into the repo).

    Tools/Fuzz/make_corpus.py OUT_DIR [SHARED_DIR]

Sources: the H.264 conformance streams of SHARED_DIR/conformance (../shared by default, when present) and
small libx264 streams made with ffmpeg. Per target:
  annexb     the first 48 KiB of every stream
  headers    SPS + PPS + one slice (first 160 bytes) per file, from the first pictures of every stream
  avcc       the avcC payload of each stream remuxed to MP4 (ffmpeg -c copy)
  mp4        each stream's first 8 frames remuxed to MP4, plain and fragmented (ffmpeg -c copy)
  y4m        small Y4M files from ffmpeg, and header variants
  arguments  NUL-separated vtk command lines
  hevcencode setup variants, field pokes, and the VPS/SPS/PPS and first slice header of H.265 streams as packed headers
  h264encode the same for H.264 (SPS/PPS and slice header of the streams used above)
"""
import os
import shutil
import subprocess
import sys
import tempfile

out = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
shared = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("VTK_SHARED", os.path.join(here, "..", "..", "..", "shared"))
targets = ["annexb", "headers", "avcc", "mp4", "y4m", "rtp", "arguments", "hevc", "hvcc", "hevcencode", "h264encode"]
for t in targets:
    os.makedirs(os.path.join(out, t), exist_ok=True)
have_ffmpeg = shutil.which("ffmpeg") is not None
work = tempfile.mkdtemp(prefix="vtk-corpus-")


def put(target, name, data):
    with open(os.path.join(out, target, name), "wb") as f:
        f.write(data)


def ffmpeg(*args):
    return subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *args], capture_output=True).returncode == 0


def nal_units(data):
    """(start, end) of each NAL unit payload of an Annex B stream."""
    starts = []
    i = data.find(b"\x00\x00\x01")
    while i >= 0:
        starts.append(i + 3)
        i = data.find(b"\x00\x00\x01", i + 3)
    units = []
    for k, s in enumerate(starts):
        e = starts[k + 1] - 3 if k + 1 < len(starts) else len(data)
        while e > s and data[e - 1] == 0:
            e -= 1
        if e > s:
            units.append(data[s:e])
    return units


def find_box(data, fourcc):
    i = data.find(fourcc)
    if i < 4:
        return None
    size = int.from_bytes(data[i - 4:i], "big")
    return data[i + 4:i - 4 + size]


streams = []
conformance = os.path.join(shared, "conformance", "h264")
if os.path.isdir(conformance):
    for name in sorted(os.listdir(conformance)):
        if name.endswith((".264", ".jsv", ".h264")):
            streams.append(os.path.join(conformance, name))
    robust = os.path.join(shared, "conformance", "h264-robustness")
    if os.path.isdir(robust):
        streams += [os.path.join(robust, n) for n in sorted(os.listdir(robust)) if n.endswith(".264")]
else:
    print("corpus: no conformance streams at %s: generated streams only" % conformance)

if have_ffmpeg:
    recipes = {
        "x264-baseline": ["-profile:v", "baseline", "-x264-params", "keyint=4:ref=2"],
        "x264-main-b": ["-profile:v", "main", "-x264-params", "bframes=2:b-pyramid=normal:weightp=2:keyint=6"],
        "x264-high-slices": ["-profile:v", "high", "-x264-params", "slices=3:8x8dct=1:bframes=1:weightb=1:keyint=5"],
        "x264-high-cavlc-cqm": ["-profile:v", "high", "-x264-params", "cabac=0:cqm=jvt:keyint=3"],
    }
    for name, opts in recipes.items():
        path = os.path.join(work, name + ".264")
        if ffmpeg("-f", "lavfi", "-i", "testsrc2=size=66x50:rate=25", "-frames:v", "8", "-pix_fmt", "yuv420p",
                  "-c:v", "libx264", *opts, "-f", "h264", path):
            streams.append(path)
else:
    print("corpus: ffmpeg not found: no generated streams, MP4 or avcC seeds")

for path in streams:
    base = os.path.basename(path)
    data = open(path, "rb").read()
    put("annexb", base, data[:48 * 1024])
    units = nal_units(data)
    sps = [u for u in units if u[0] & 0x1F == 7]
    pps = [u for u in units if u[0] & 0x1F == 8]
    slices = [u for u in units if u[0] & 0x1F in (1, 5)]
    for k, s in enumerate(slices[:6]):
        blob = b"".join(b"\x00\x00\x00\x01" + u for u in (sps[:1] + pps[:2] + [s[:160]]))
        put("headers", "%s-%d" % (base, k), blob)
    for k, u in enumerate(units):
        if u[0] & 0x1F in (6, 9) and k < 40:
            put("headers", "%s-sei-%d" % (base, k), b"\x00\x00\x00\x01" + u)
    if have_ffmpeg:
        for kind, flags in (("plain", []), ("frag", ["-movflags", "frag_keyframe+empty_moov+default_base_moof"])):
            mp4 = os.path.join(work, "%s-%s.mp4" % (base, kind))
            if ffmpeg("-f", "h264", "-i", path, "-frames:v", "8", "-c", "copy", *flags, mp4):
                blob = open(mp4, "rb").read()
                if len(blob) <= 256 * 1024:
                    put("mp4", "%s-%s" % (base, kind), blob)
                avcc = find_box(blob, b"avcC")
                if avcc:
                    put("avcc", base, avcc)

if have_ffmpeg:
    for size in ("16x16", "17x9", "2x2"):
        y4m = os.path.join(work, size + ".y4m")
        if ffmpeg("-f", "lavfi", "-i", "testsrc2=size=%s:rate=25" % size, "-frames:v", "2", "-pix_fmt", "yuv420p", y4m):
            put("y4m", size, open(y4m, "rb").read())
for k, line in enumerate([b"YUV4MPEG2 W4 H2 F30000:1001 Ip A1:1 C420jpeg XYSCSS=420JPEG\nFRAME\n" + bytes(12),
                          b"YUV4MPEG2 W3 H3 F25:1 A0:0 C420mpeg2\nFRAME Ixyz\n" + bytes(17),
                          b"YUV4MPEG2 W1 H1 C420paldv It\nFRAME\n\x10\x80\x80"]):
    put("y4m", "header-%d" % k, line)

for k, args in enumerate([["encode", "in.y4m", "-o", "out.h264", "--size", "352x288", "--bitrate", "1M"],
                          ["decode", "in.264", "--md5", "-o", "-"], ["roundtrip", "--psnr", "--min-psnr=35", "--frames", "300"],
                          ["probe", "--json", "--", "-odd"], ["encode", "--qp", "26", "--rate-control", "cqp", "-s", "1280x720", "-v"]]):
    put("arguments", "args-%d" % k, b"\x00".join(a.encode() for a in args))

# H.265: the first 48 KiB of each stream, and the hvcC FFmpeg writes for it.
hevc = os.path.join(shared, "conformance", "h265")
if os.path.isdir(hevc):
    for name in sorted(os.listdir(hevc)):
        if not name.endswith((".265", ".bin")):
            continue
        path = os.path.join(hevc, name)
        put("hevc", name, open(path, "rb").read()[:48 * 1024])
        mp4 = os.path.join(work, name + ".mp4")
        if have_ffmpeg and ffmpeg("-i", path, "-frames:v", "4", "-c", "copy", "-tag:v", "hvc1", mp4):
            blob = open(mp4, "rb").read()
            put("mp4", name + "-hvc1", blob)
            hvcc = find_box(blob, b"hvcC")
            if hvcc:
                put("hvcc", name, hvcc)


def rtp_seed(units, mtu, seq=65530, h265=False):
    """RTP packets of `units`, each datagram preceded by its 16-bit length: RFC 6184 (single NAL, STAP-A,
    FU-A) or, with h265, RFC 7798 (single NAL, AP, FU; 2-byte payload headers)."""
    hs = 2 if h265 else 1
    payloads, group = [], []
    def flush():
        if len(group) == 1:
            payloads.append(group[0])
        elif group:
            if h265:
                header = bytes([48 << 1, min(u[1] & 7 for u in group)])
            else:
                header = bytes([max(u[0] & 0x60 for u in group) | 24])
            payloads.append(header + b"".join(len(u).to_bytes(2, "big") + u for u in group))
        group.clear()
    for u in units:
        if len(u) < hs:
            continue
        if len(u) > mtu - 12:
            flush()
            body, first = u[hs:], True
            chunk_size = mtu - 12 - hs - 1
            while body:
                chunk, body = body[:chunk_size], body[chunk_size:]
                if h265:
                    ntype = (u[0] >> 1) & 0x3F
                    indicator = bytes([(u[0] & 0x81) | (49 << 1), u[1]])
                else:
                    ntype = u[0] & 0x1F
                    indicator = bytes([(u[0] & 0xE0) | 28])
                header = (0x80 if first else 0) | (0x40 if not body else 0) | ntype
                payloads.append(indicator + bytes([header]) + chunk)
                first = False
        else:
            if sum(len(g) + 2 for g in group) + len(u) + hs + 2 > mtu - 12:
                flush()
            group.append(u)
    flush()
    out = b""
    for k, p in enumerate(payloads):
        packet = bytes([0x80, 96 | (0x80 if k == len(payloads) - 1 else 0)]) + ((seq + k) & 0xFFFF).to_bytes(2, "big") \
            + (k * 3000).to_bytes(4, "big") + (7).to_bytes(4, "big") + p
        out += len(packet).to_bytes(2, "big") + packet
    return out


for k, path in enumerate(streams[:6]):
    with open(path, "rb") as f:
        units = nal_units(f.read())[:12]
    put("rtp", "stream-%d" % k, rtp_seed(units, [100, 300, 1200][k % 3]))
if os.path.isdir(hevc):
    names = [n for n in sorted(os.listdir(hevc)) if n.endswith((".265", ".bin"))]
    for k, name in enumerate(names[:4]):
        with open(os.path.join(hevc, name), "rb") as f:
            units = nal_units(f.read(1 << 20))[:12]
        put("rtp", "hevc-%d" % k, rtp_seed(units, [100, 300, 1200][k % 3], h265=True))
put("rtp", "rtcp", bytes([0, 28]) + bytes([0x80, 201, 0, 1, 0, 0, 0, 2, 0x81, 206, 0, 2, 0, 0, 0, 2, 0, 0, 0, 7, 0x81, 203, 0, 1, 0, 0, 0, 7]))

# hevcencode (FuzzHEVCEncode.swift): a setup byte, a byte of pictures to mutate, 4-byte pokes (buffer, offset
# low, high, value), then 0xFF, a packed header type (1 sequence, 3 slice) and its bytes.
for target in ("hevcencode", "h264encode"):
    for k, setup in enumerate([0x00, 0x01, 0x02, 0x03, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80]):
        put(target, "setup-%d" % k, bytes([setup, 0x07]))
    for k in range(16):
        put(target, "poke-%d" % k, bytes([0x02, 0x07, k % 4, (k * 37) & 0xFF, 0, (k * 91 + 1) & 0xFF]))
for k, path in enumerate(streams[:4]):
    with open(path, "rb") as f:
        units = nal_units(f.read(1 << 20))[:12]
    sets = b"".join(b"\x00\x00\x00\x01" + u for u in units if u[0] & 0x1F in (7, 8))
    slices = [u for u in units if u[0] & 0x1F in (1, 5)]
    put("h264encode", "packed-sets-%d" % k, bytes([0x02, 0x38, 0xFF, 0x41]) + sets)
    if slices:
        put("h264encode", "packed-slice-%d" % k, bytes([0x02, 0x08, 0xFF, 0x43, 0, 0, 0, 1]) + slices[0][:24])
if os.path.isdir(hevc):
    names = [n for n in sorted(os.listdir(hevc)) if n.endswith((".265", ".bin"))]
    for k, name in enumerate(names[:4]):
        with open(os.path.join(hevc, name), "rb") as f:
            units = nal_units(f.read(1 << 20))[:12]
        sets = b"".join(b"\x00\x00\x00\x01" + u for u in units if (u[0] >> 1) & 0x3F in (32, 33, 34))
        slices = [u for u in units if (u[0] >> 1) & 0x3F < 32]
        put("hevcencode", "packed-sets-%d" % k, bytes([0x00, 0x38, 0xFF, 0x41]) + sets)
        if slices:
            put("hevcencode", "packed-slice-%d" % k, bytes([0x00, 0x08, 0xFF, 0x43, 0, 0, 0, 1]) + slices[0][:24])

shutil.rmtree(work, ignore_errors=True)
for t in targets:
    print("corpus: %-9s %d seeds" % (t, len(os.listdir(os.path.join(out, t)))))
