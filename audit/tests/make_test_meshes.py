#!/usr/bin/env python3
"""Writes the audit's own test meshes as OBJ files into a directory:

  bumpy_ball.obj  a closed, non-convex mesh (a subdivided icosahedron with its
                  radius rippled by +-25 %): 5120 triangles, consistently
                  oriented (counter-clockwise seen from outside)
  open_bowl.obj   the same mesh with every triangle above z = 0.6 removed: open

Usage: make_test_meshes.py OUT_DIR
Deterministic: the same bytes on every run (no randomness, repr of floats).
"""
import math
import os
import sys


def icosphere(subdivisions):
    t = (1 + math.sqrt(5)) / 2
    corners = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t),
               (0, -1, -t), (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    faces = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
             (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
             (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]

    def unit(p):
        n = math.sqrt(p[0] ** 2 + p[1] ** 2 + p[2] ** 2)
        return (p[0] / n, p[1] / n, p[2] / n)

    points = [unit(c) for c in corners]
    for _ in range(subdivisions):
        midpoint = {}

        def middle(a, b):
            key = (min(a, b), max(a, b))
            if key not in midpoint:
                pa, pb = points[a], points[b]
                points.append(unit(((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2, (pa[2] + pb[2]) / 2)))
                midpoint[key] = len(points) - 1
            return midpoint[key]

        refined = []
        for a, b, c in faces:
            ab, bc, ca = middle(a, b), middle(b, c), middle(c, a)
            refined += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        faces = refined
    return points, faces


def rippled(points):
    out = []
    for x, y, z in points:
        theta = math.atan2(y, x)
        phi = math.acos(max(-1.0, min(1.0, z)))
        r = 0.8 * (1 + 0.25 * math.sin(3 * theta) * math.sin(2 * phi))
        out.append((r * x + 0.0137, r * y - 0.0211, r * z + 0.0093))
    return out


def write_obj(path, points, faces):
    used = sorted({i for f in faces for i in f})
    index = {old: new + 1 for new, old in enumerate(used)}
    with open(path, "w", encoding="ascii") as f:
        for i in used:
            f.write("v %r %r %r\n" % points[i])
        for a, b, c in faces:
            f.write("f %d %d %d\n" % (index[a], index[b], index[c]))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    points, faces = icosphere(4)  # 20 * 4^4 = 5120 triangles
    points = rippled(points)
    write_obj(os.path.join(out, "bumpy_ball.obj"), points, faces)
    open_faces = [f for f in faces if max(points[i][2] for i in f) < 0.6]
    write_obj(os.path.join(out, "open_bowl.obj"), points, open_faces)


if __name__ == "__main__":
    main()
