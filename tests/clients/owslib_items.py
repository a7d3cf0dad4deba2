"""Reads a collection's items in a bounding box with OWSLib, as a Python GIS script would.

    python owslib_items.py BASE_URL COLLECTION --bbox=minx,miny,maxx,maxy [--limit N]
        [--crs URI] [--bbox-crs URI]

The bearer token, when the server asks for one, comes from the MS4_TOKEN environment
variable (not the command line, where other users of the machine could read it).

Prints one JSON object: the collection ids the landing page leads to, the conformance
classes, and every feature found (following the `next` links page by page, since OWSLib
returns one page) as {"id": [x, y]} for points or {"id": null} for other geometries, plus
the pages read and numberMatched of the first page.
"""

import argparse
import json
import os
import sys

from owslib.ogcapi.features import Features
from owslib.util import http_get


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("collection")
    # An option, written --bbox=..., since a bbox west of Greenwich starts with a minus.
    ap.add_argument("--bbox", required=True)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--crs", default=None)
    ap.add_argument("--bbox-crs", default=None)
    a = ap.parse_args()

    headers = {}
    token = os.environ.get("MS4_TOKEN")
    if token:
        headers["Authorization"] = f"Bearer {token}"
    # Features() reads the landing page; its own requests and http_get below send the
    # same headers.
    w = Features(a.url, headers=headers)
    collections = [c["id"] for c in w.collections()["collections"]]
    conforms = w.conformance().get("conformsTo", [])

    params = {"bbox": [float(v) for v in a.bbox.split(",")]}
    if a.limit is not None:
        params["limit"] = a.limit
    if a.crs:
        params["crs"] = a.crs
    if a.bbox_crs:
        params["bbox-crs"] = a.bbox_crs
    page = w.collection_items(a.collection, **params)

    found = {}
    pages = 0
    matched = page.get("numberMatched")
    while True:
        pages += 1
        for f in page["features"]:
            fid = str(f["id"])
            if fid in found:
                sys.exit(f"feature {fid} returned twice")
            g = f.get("geometry")
            found[fid] = g["coordinates"] if g and g["type"] == "Point" else None
        nxt = [l for l in page.get("links", []) if l.get("rel") == "next"]
        if not nxt or not page["features"]:
            break
        if pages > 10000:
            sys.exit("more than 10000 pages: the next links do not end")
        r = http_get(nxt[0]["href"], headers=w.headers)
        r.raise_for_status()
        page = r.json()

    json.dump(
        {
            "collections": collections,
            "conformsTo": conforms,
            "numberMatched": matched,
            "pages": pages,
            "features": found,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
