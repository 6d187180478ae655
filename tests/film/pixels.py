"""Read what a JPEG shows with Chromium's own decoder: the mean colour of each image,
named "red", "green" or "other" (the tests paint whole pages one colour)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

MEAN = """async (src) => {
  const img = new Image(); img.src = src; await img.decode();
  const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
  const g = c.getContext('2d'); g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  let r = 0, gr = 0, b = 0; const n = d.length / 4;
  for (let i = 0; i < d.length; i += 4) { r += d[i]; gr += d[i + 1]; b += d[i + 2]; }
  return [r / n, gr / n, b / n];
}"""


def name(rgb: list[float]) -> str:
    r, g, b = rgb
    if r > 150 and g < 100 and b < 100:
        return "red"
    if g > 150 and r < 100 and b < 100:
        return "green"
    return "other"


async def dominant_colours(pw: Any, chrome_url: str, files: list[Path]) -> list[str]:
    browser = await pw.chromium.connect_over_cdp(chrome_url)
    try:
        ctx = await browser.new_context()
        page = await ctx.new_page()
        out = []
        for path in files:
            src = "data:image/jpeg;base64," + base64.b64encode(path.read_bytes()).decode()
            out.append(name(await page.evaluate(MEAN, src)))
        await ctx.close()
        return out
    finally:
        await browser.close()
