"""What every page must be, checked in the browser on the page as laid out: pictures with
words for those who cannot see them, text people can read (WCAG 2's contrast), a layout
that fits a phone's width, every picture actually loaded, and nothing axe-core finds
against WCAG 2.0 and 2.1 (levels A and AA) or its best practices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page

#: axe-core's script, installed with the Activity's packages: its version is the one
#: web/activity/package-lock.json pins, so that a page passing today passes tomorrow.
AXE = Path(__file__).resolve().parents[2] / "web" / "activity" / "node_modules" / "axe-core"
AXE_SCRIPT = AXE / "axe.min.js"
#: The rules axe-core runs: those of WCAG 2.0 and 2.1 at levels A and AA, and its best
#: practices.
AXE_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice")
#: axe-core run on the whole page; what it found, each rule with the elements it failed.
AXE_RUN = """
async (tags) => {
  const result = await axe.run(document, { runOnly: { type: "tag", values: tags } });
  return result.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    helpUrl: v.helpUrl,
    nodes: v.nodes.map((n) => ({ target: n.target, summary: n.failureSummary })),
  }));
}
"""

#: Every `<img>` without words for it: its source.
IMAGES_WITHOUT_ALT = """
() => Array.from(document.images)
  .filter((img) => !(img.getAttribute("alt") || "").trim())
  .map((img) => img.getAttribute("src"))
"""

#: Every picture that did not load (none may be missing or broken), once all have had
#: their chance: lazy pictures are loaded by scrolling to them first.
ALL_PICTURES_IN = """
() => Array.from(document.images).every((img) => img.complete)
"""
BROKEN_PICTURES = """
() => Array.from(document.images)
  .filter((img) => img.naturalWidth === 0)
  .map((img) => img.getAttribute("src"))
"""

#: The contrast of every text node's element against what is behind it (WCAG 2.x: the
#: relative luminance of the text colour and of the background, composited from the
#: element's own background up to the canvas), with the ratio it needs: 4.5, or 3 for
#: large text (24 px, or 18.66 px bold). Text in a control that is disabled is exempt, as
#: WCAG exempts inactive controls. A background that is a picture, or an element seen
#: through a translucent ancestor, cannot be judged this way: it is reported as such.
CONTRAST = r"""
() => {
  const parse = (text) => {
    const m = /rgba?\(([^)]*)\)/.exec(text);
    if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(parseFloat);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, below) => {
    const a = top[3] + below[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    const mix = (i) => (top[i] * top[3] + below[i] * below[3] * (1 - top[3])) / a;
    return [mix(0), mix(1), mix(2), a];
  };
  const channel = (v) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
  };
  const luminance = (c) => 0.2126 * channel(c[0]) + 0.7152 * channel(c[1]) + 0.0722 * channel(c[2]);
  const ratio = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const describe = (el) => {
    const id = el.id ? "#" + el.id : "";
    const cls = el.classList.length ? "." + Array.from(el.classList).join(".") : "";
    const parent = el.parentElement ? el.parentElement.tagName.toLowerCase() + " > " : "";
    return parent + el.tagName.toLowerCase() + id + cls;
  };
  const found = [];
  for (const el of document.body.querySelectorAll("*")) {
    if (["SCRIPT", "STYLE", "TEMPLATE", "NOSCRIPT", "OPTION"].includes(el.tagName)) continue;
    const texts = Array.from(el.childNodes).filter((n) => n.nodeType === 3 && n.textContent.trim());
    if (!texts.length) continue;
    const range = document.createRange();
    range.selectNodeContents(texts[0]);
    const shown = Array.from(range.getClientRects()).some((r) => r.width > 0 && r.height > 0);
    const style = getComputedStyle(el);
    if (!shown || style.visibility !== "visible") continue;
    if (el.closest(":disabled")) continue;
    const text = texts.map((n) => n.textContent.trim()).join(" ").slice(0, 60);
    let behind = [];
    let unknown = "";
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.backgroundImage !== "none") unknown = "a picture behind it";
      if (parseFloat(s.opacity) < 1) unknown = "a translucent " + e.tagName.toLowerCase();
      const layer = parse(s.backgroundColor);
      if (layer === null) unknown = "a colour written as " + s.backgroundColor;
      else behind.push(layer);
    }
    const ink = parse(style.color);
    if (ink === null) unknown = "a colour written as " + style.color;
    const size = parseFloat(style.fontSize);
    const bold = parseInt(style.fontWeight, 10) >= 700;
    const large = size >= 24 || (size >= 18.66 && bold);
    const needed = large ? 3 : 4.5;
    if (unknown) {
      found.push({ element: describe(el), text, ratio: 0, needed, unknown });
      continue;
    }
    let background = [255, 255, 255, 1];  // the canvas
    for (const layer of behind.reverse()) background = over(layer, background);
    const color = over(ink, background);
    const r = ratio(color, background);
    if (r < needed) {
      found.push({
        element: describe(el), text, ratio: Math.round(r * 100) / 100, needed, unknown,
        color: style.color, background: "rgb(" + background.slice(0, 3).map(Math.round) + ")",
      });
    }
  }
  return found;
}
"""

VIEWPORT_META = """
() => Array.from(document.querySelectorAll('meta[name="viewport"]'))
  .map((m) => m.getAttribute("content") || "")
"""

#: What sticks out past the right edge of the window, widest first: the page's width, and
#: the elements that reach beyond it.
OVERFLOW = """
(width) => {
  const beyond = [];
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (r.right > width + 0.5 && r.width > 0) {
      beyond.push(el.tagName.toLowerCase() + (el.className ? "." + el.className : "")
        + " reaches " + Math.round(r.right) + " px");
    }
  }
  return { scrollWidth: document.documentElement.scrollWidth, beyond: beyond.slice(0, 8) };
}
"""


async def load_every_picture(page: Page) -> None:
    """Bring every picture into view, so that lazy ones load too, and wait for them all;
    then back to the top."""
    for picture in await page.locator("img").all():
        await picture.scroll_into_view_if_needed()
    await page.wait_for_function(ALL_PICTURES_IN)
    await page.evaluate("window.scrollTo(0, 0)")


async def contrast_failures(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = await page.evaluate(CONTRAST)
    return found


async def overflow(page: Page, width: int) -> dict[str, Any]:
    found: dict[str, Any] = await page.evaluate(OVERFLOW, width)
    return found


async def axe_violations(page: Page) -> list[dict[str, Any]]:
    """What axe-core finds wrong with the page as it is now (see `AXE_TAGS`): each rule
    broken, with its impact, what it asks for, and the elements that break it. A page
    without axe-core yet is given it first. Without axe-core installed the test fails,
    saying how to install it: the check is never skipped."""
    if not AXE_SCRIPT.is_file():
        pytest.fail(
            f"axe-core is not installed ({AXE_SCRIPT} is missing): run `make test`, which "
            "installs the Activity's packages (npm ci in web/activity) before the tests.",
            pytrace=False,
        )
    if not await page.evaluate("() => typeof window.axe === 'object'"):
        await page.add_script_tag(path=AXE_SCRIPT)
    found: list[dict[str, Any]] = await page.evaluate(AXE_RUN, list(AXE_TAGS))
    return found


def said(violations: list[dict[str, Any]], where: str) -> list[str]:
    """axe-core's findings as lines to read: the rule and its impact, what it asks for,
    and each element that breaks it, by its selector."""
    lines = []
    for v in violations:
        lines.append(f"{where}: {v['id']} ({v['impact']}): {v['help']} <{v['helpUrl']}>")
        for node in v["nodes"]:
            target = " ".join(" >>> ".join(t) if isinstance(t, list) else t for t in node["target"])
            summary = " ".join(str(node["summary"] or "").split())
            lines.append(f"    {target}: {summary}")
    return lines
