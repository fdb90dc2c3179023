// Page helpers for canvas and table assertions.

/** FNV-1a (32-bit) hash of a canvas's RGBA pixels, as `WxH:hhhhhhhh`. */
export async function canvasHash(page, selector) {
  return page.$eval(selector, (canvas) => {
    const { width, height } = canvas;
    if (!width || !height) return 'empty';
    // Copy via drawImage so this works for 2d and WebGL canvases alike.
    const copy = document.createElement('canvas');
    copy.width = width;
    copy.height = height;
    const ctx = copy.getContext('2d');
    ctx.drawImage(canvas, 0, 0);
    const data = ctx.getImageData(0, 0, width, height).data;
    let h = 0x811c9dc5;
    for (let i = 0; i < data.length; i++) {
      h ^= data[i];
      h = Math.imul(h, 0x01000193);
    }
    return `${width}x${height}:${(h >>> 0).toString(16).padStart(8, '0')}`;
  });
}

/** 2-D array (rows x columns) of `data-value` strings of a table's `tbody td` cells. */
export async function tableValues(page, selector) {
  return page.$eval(selector, (table) =>
    [...table.querySelectorAll('tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => td.getAttribute('data-value'))));
}
