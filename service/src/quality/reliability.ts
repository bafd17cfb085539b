/**
 * The reliability diagram of `npm run eval` as a PNG: one panel per question type (and one for all
 * cases), accuracy per equal-width confidence bin as bars, mean confidence per bin as red marks with the gap shaded, the
 * diagonal of perfect calibration, and a strip under each plot with the number of cases per bin.
 */
import { Raster, type RGB } from './png.js';
import { ece, reliabilityBins } from './metrics.js';

export interface ReliabilitySeries {
  name: string;
  colour: RGB;
  confidences: number[];
  correct: boolean[];
}

export const TYPE_COLOURS: Record<string, RGB> = {
  noul: [52, 101, 164],
  choice: [230, 126, 34],
  score: [46, 139, 87],
  all: [110, 110, 110],
};

const BLACK: RGB = [0, 0, 0];
const GREY: RGB = [150, 150, 150];
const LIGHT: RGB = [228, 228, 228];
const GAP: RGB = [200, 30, 30];

const PANEL_W = 390;
const PANEL_H = 450;
const PLOT = 300;
const LEFT = 56;
const TOP = 44;
const STRIP = 44;

function fmt(x: number): string {
  return Number.isFinite(x) ? x.toFixed(3) : '-';
}

function panel(img: Raster, ox: number, s: ReliabilitySeries, bins: number): void {
  const x0 = ox + LEFT;
  const y0 = TOP;
  const px = (c: number) => x0 + c * PLOT;
  const py = (a: number) => y0 + PLOT - a * PLOT;
  const n = s.confidences.length;
  img.text(x0, 12, `${s.name}  N=${n}  ECE=${fmt(ece(s.confidences, s.correct, bins))}`, BLACK, 2);

  for (let g = 0; g <= 10; g += 2) {
    img.line(px(g / 10), py(0), px(g / 10), py(1), LIGHT);
    img.line(px(0), py(g / 10), px(1), py(g / 10), LIGHT);
  }
  const rb = reliabilityBins(s.confidences, s.correct, bins);
  const bw = PLOT / bins;
  for (const b of rb) {
    if (!b.count) continue;
    const top = py(b.accuracy);
    img.fillRect(px(b.lo) + 1, top, bw - 2, py(0) - top, s.colour, 0.8);
    if (b.accuracy > 0) img.strokeRect(px(b.lo) + 1, top, bw - 2, py(0) - top, BLACK);
    else img.line(px(b.lo) + 1, py(0) - 1, px(b.lo) + bw - 1, py(0) - 1, s.colour, 3);
    // calibration gap: from the bar's top to the bin's mean confidence
    const lo = Math.min(b.accuracy, b.confidence);
    const hi = Math.max(b.accuracy, b.confidence);
    img.fillRect(px(b.lo) + 3, py(hi), bw - 6, py(lo) - py(hi), GAP, 0.35);
    img.line(px(b.lo) + 1, py(b.confidence), px(b.lo) + bw - 1, py(b.confidence), GAP, 2);
  }
  img.line(px(0), py(0), px(1), py(1), GREY, 2, 6);
  img.strokeRect(px(0), py(1), PLOT, PLOT, BLACK);

  // y axis
  for (const a of [0, 0.5, 1]) {
    const label = a === 0 ? '0' : a === 1 ? '1' : '.5';
    img.text(x0 - 6 - Raster.textWidth(label), py(a) - 5, label, BLACK, 2);
    img.line(x0 - 4, py(a), x0, py(a), BLACK);
  }
  img.textVertical(ox + 10, y0 + PLOT / 2 + Raster.textWidth('ACCURACY') / 2, 'ACCURACY', BLACK, 2);

  // count strip
  const sy = y0 + PLOT + 8;
  const maxCount = Math.max(1, ...rb.map((b) => b.count));
  img.line(px(0), sy + STRIP, px(1), sy + STRIP, BLACK);
  for (const b of rb) {
    if (!b.count) continue;
    const h = Math.max(1, ((STRIP - 9) * b.count) / maxCount);
    img.fillRect(px(b.lo) + 1, sy + STRIP - h, bw - 2, h, s.colour, 0.5);
    const label = String(b.count);
    img.text(px(b.lo) + bw / 2 - Raster.textWidth(label, 1) / 2, sy + STRIP - h - 7, label, BLACK, 1);
  }
  img.text(ox + 6, sy + STRIP - 12, 'N', BLACK, 2);

  // x axis
  for (const c of [0, 0.5, 1]) {
    const label = c === 0 ? '0' : c === 1 ? '1' : '.5';
    img.line(px(c), sy + STRIP, px(c), sy + STRIP + 4, BLACK);
    img.text(px(c) - Raster.textWidth(label) / 2, sy + STRIP + 7, label, BLACK, 2);
  }
  const xl = 'CONFIDENCE OF PREDICTED ANSWER';
  img.text(x0 + PLOT / 2 - Raster.textWidth(xl) / 2, sy + STRIP + 22, xl, BLACK, 2);
}

/** Renders the panels side by side and returns the PNG bytes. */
export function reliabilityPng(series: ReliabilitySeries[], bins = 15, caption = ''): Buffer {
  const width = Math.max(1, series.length) * PANEL_W;
  const img = new Raster(width, PANEL_H + 50);
  series.forEach((s, i) => panel(img, i * PANEL_W, s, bins));
  const legend = `BARS: ACCURACY PER BIN (${bins} EQUAL-WIDTH BINS). RED MARK: MEAN CONFIDENCE IN BIN (SHADED: GAP). DASHED: PERFECT CALIBRATION. N: CASES PER BIN.`;
  img.text(8, PANEL_H + 4, legend, BLACK, 2);
  if (caption) img.text(8, PANEL_H + 24, caption, BLACK, 2);
  return img.toPng();
}
