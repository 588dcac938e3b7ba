"""tools.placement_map: a real browser loads `tessera partition --html`.

Headless Debian chromium renders the page (its script runs) and dumps the
DOM; the test counts what the page shows against `tessera partition --json`
for the same model and providers: nodes per provider color, the copies
between memory spaces, the fallback flags, the verdict line. On the bundled
default model and on a mixed opencl,cpu model (PoCL gives OpenCL a CPU
device). With --profile, partitions carry their share of the run.

usage: placement_map_test.py TESSERA DEFAULT_MODEL WORK_DIR
Exit 77 (skip) when chromium is not installed or the build lacks Graphviz.
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_models  # noqa: E402

TESSERA, DEFAULT_MODEL, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
check = tool_models.Checks()


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def dump_dom(browser, page, fragment=""):
    # --no-sandbox: CI containers run as root, where the sandbox cannot start;
    # --disable-dev-shm-usage: their /dev/shm is small; a profile folder of
    # its own so concurrent runs do not share one.
    out = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                          "--user-data-dir=" + os.path.join(WORK, "chromium-profile"), "--virtual-time-budget=5000",
                          "--dump-dom", "file://" + os.path.abspath(page) + fragment],
                         capture_output=True, text=True, timeout=120)
    return out.stdout


def partition_json(model, providers, extra=()):
    out = subprocess.run([TESSERA, "partition", model, "--providers", providers, "--json", *extra],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def write_html(model, providers, page, extra=()):
    out = subprocess.run([TESSERA, "partition", model, "--providers", providers, "--html", page, *extra],
                         capture_output=True, text=True)
    return out


def classes_of(dom, kind):
    """Class lists of every <g class="KIND ..."> element in the dumped DOM."""
    return [m.group(1).split() for m in re.finditer(r'<g [^>]*class="(' + kind + r'(?: [^"]*)?)"', dom)]


def check_page(name, model, providers, browser, extra=()):
    page = os.path.join(WORK, name + ".html")
    res = write_html(model, providers, page, extra)
    if res.returncode != 0 and "lacks Graphviz" in res.stderr:
        print("SKIPPED: this build lacks Graphviz:", res.stderr.strip())
        sys.exit(77)
    check(res.returncode == 0, f"{name}: partition --html exits 0 ({res.stderr.strip()[:300]})")
    plan = partition_json(model, providers)
    html = open(page, encoding="utf-8").read()
    # Self-contained: nothing to fetch when viewed.
    check(not re.search(r'<(script|img|link|iframe)[^>]*(src|href)=', html), f"{name}: no external resources")
    dom = dump_dom(browser, page)
    check('data-ready="true"' in dom, f"{name}: the page's script ran to the end in chromium")
    nodes = classes_of(dom, "node")
    per_provider = {}
    for n in plan["nodes"]:
        per_provider[n["provider"]] = per_provider.get(n["provider"], 0) + 1
    for ep, count in per_provider.items():
        drawn = sum(1 for c in nodes if "tnode" in c and "ep-" + ep in c)
        check(drawn == count, f"{name}: {count} {ep} node(s) in --json, {drawn} drawn in the {ep} color")
        legend = re.search(r'data-provider="' + ep + r'" data-count="(\d+)"', dom)
        check(legend is not None and int(legend.group(1)) == count, f"{name}: the legend counts {count} {ep} node(s)")
    check(sum(1 for c in nodes if "tnode" in c) == len(plan["nodes"]), f"{name}: every placed node is drawn")
    fallbacks = sum(1 for n in plan["nodes"] if n["declined"])
    flagged = sum(1 for c in nodes if "fallback" in c)
    check(flagged == fallbacks, f"{name}: {fallbacks} fallback(s) in --json, {flagged} flagged on the page")
    copy_classes = set()
    for c in classes_of(dom, "edge"):
        copy_classes.update(x for x in c if re.fullmatch(r"copy-\d+", x))
    check(len(copy_classes) == len(plan["copies"]),
          f"{name}: {len(plan['copies'])} copies in --json, {len(copy_classes)} marked copy edges")
    legend = re.search(r'id="legend-copies" data-count="(\d+)"', dom)
    check(legend is not None and int(legend.group(1)) == len(plan["copies"]), f"{name}: the legend counts the copies")
    clusters = classes_of(dom, "cluster")
    check(len(clusters) == len(plan["partitions"]), f"{name}: one box per partition ({len(plan['partitions'])})")
    overview = sum(1 for c in nodes if "onode" in c)
    want = len(plan["partitions"]) if len(plan["partitions"]) > 1 else 0
    check(overview == want, f"{name}: the overview has one box per partition ({overview} of {want})")
    verdict = re.search(r'<div id="verdict">([^<]*)</div>', dom)
    check(verdict is not None and verdict.group(1).replace("&amp;", "&") == plan["verdict"],
          f"{name}: the verdict line is the report's")
    for c in plan["copies"]:
        label = "copy dynamic" if not c["bytes"].isdigit() else "copy "
        check(label in dom, f"{name}: copy of {c['value']} labelled ({label.strip()})")
    return dom, plan


def main():
    browser = chromium()
    if browser is None:
        print("SKIPPED: chromium is not installed (apt-get install chromium; scripts/setup.sh does)")
        return 77
    os.makedirs(WORK, exist_ok=True)
    check_page("default", DEFAULT_MODEL, "cpu", browser)
    mixed = tool_models.mixed_opencl_cpu(os.path.join(WORK, "mixed.onnx"))
    probe = subprocess.run([TESSERA, "partition", mixed, "--providers", "opencl,cpu", "--json"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        print("note: no OpenCL device, mixed model skipped:", probe.stderr.strip()[:200])
    else:
        dom, plan = check_page("mixed", mixed, "opencl,cpu", browser)
        eps = {n["provider"] for n in plan["nodes"]}
        check(eps == {"opencl", "cpu"} and len(plan["copies"]) >= 4 and len(plan["partitions"]) == 5,
              "mixed: opencl and cpu partitions alternate with copies between them")
        check("<title>round1 (Round, cpu)\nopencl: opencl has no kernel for ai.onnx:Round</title>" in dom,
              "mixed: a fallback node's tooltip gives the declining provider's reason")
        page = os.path.join(WORK, "mixed.html")
        # Search (by op, node or value name) and the hover panel, driven
        # through the page's #q= and #node= links.
        for query, want in (("Conv", 2), ("round1", 1), ("q1", 2), ("nothing-like-this", 0)):
            found = dump_dom(browser, page, "#q=" + query)
            hits = len(re.findall(r'<g [^>]*class="node tnode[^"]* hit"', found))
            check(hits == want, f"mixed: searching '{query}' marks {want} node(s) ({hits})")
        found = dump_dom(browser, page, "#node=conv2")
        panel = re.search(r'<div id="panel"[^>]*>(.*?)</div>', found, re.S)
        text = panel.group(1) if panel else ""
        check("ai.onnx:Conv (opset 17)" in text and "q1: tensor(float)[1,8,16,16]" in text and
              "opencl, partition #2" in text, "mixed: the hover panel gives op, opset, provider, shapes and types")
    # The default model with dnnl first: dnnl declines the dynamic batch, so
    # every node is flagged with its reason.
    dnnl = subprocess.run([TESSERA, "partition", DEFAULT_MODEL, "--providers", "dnnl,cpu", "--json"],
                          capture_output=True, text=True)
    if dnnl.returncode == 0:
        dom, plan = check_page("default_dnnl", DEFAULT_MODEL, "dnnl,cpu", browser)
        check(any(n["declined"] for n in plan["nodes"]) and "shape not static" in dom,
              "default_dnnl: nodes dnnl declines are flagged with its reason")
    # Past 1,500 nodes the page opens with every partition collapsed; a click
    # on a box expands it.
    big = tool_models.long_ladder(os.path.join(WORK, "ladder.onnx"), 1800)
    dom, plan = check_page("ladder", big, "opencl,cpu" if probe.returncode == 0 else "cpu", browser)
    hidden = len(re.findall(r'<g [^>]*class="node tnode[^"]*hidden', dom))
    collapsed = len(re.findall(r'<g [^>]*class="cluster part[^"]*collapsed', dom))
    check(hidden == len(plan["nodes"]) and collapsed == len(plan["partitions"]),
          f"ladder: {len(plan['nodes'])} nodes start collapsed ({hidden} hidden, {collapsed} box(es) collapsed)")
    # A search hit inside a collapsed partition expands that partition only.
    found = dump_dom(browser, os.path.join(WORK, "ladder.html"), "#q=sigmoid901")
    part = next(n["partition"] for n in plan["nodes"] if n["name"] == "sigmoid901")
    size = sum(1 for n in plan["nodes"] if n["partition"] == part)
    shown = len(re.findall(r'<g [^>]*class="node tnode(?![^"]*hidden)[^"]*"', found))
    check(shown == size and len(re.findall(r'class="cluster part[^"]*collapsed', found)) == len(plan["partitions"]) - 1,
          f"ladder: a search hit expands its partition ({shown} of {size} node(s) shown)")
    # --profile: node time shades the boxes and partitions show their share.
    prefix = os.path.join(WORK, "profile")
    for f in os.listdir(WORK):
        if f.startswith("profile_") and f.endswith(".json"):
            os.remove(os.path.join(WORK, f))
    subprocess.run([TESSERA, "run", DEFAULT_MODEL, "--providers", "cpu", "--runs", "3", "--profile", prefix],
                   capture_output=True, text=True, check=True)
    trace = [os.path.join(WORK, f) for f in os.listdir(WORK) if f.startswith("profile_") and f.endswith(".json")][0]
    dom, plan = check_page("profiled", DEFAULT_MODEL, "cpu", browser, ["--profile", trace])
    shares = re.findall(r"(\d+\.\d)% of time", dom)
    check(len(shares) == len(plan["partitions"]) and abs(sum(map(float, shares)) - 100.0) < 0.2 * len(shares),
          f"profiled: each partition shows its share of the time ({shares})")
    check('"profiled": true' in open(os.path.join(WORK, "profiled.html")).read(), "profiled: node times in the page")
    return check.exit_code()


if __name__ == "__main__":
    sys.exit(main())
