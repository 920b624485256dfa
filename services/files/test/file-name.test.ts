import { sanitiseOriginalName } from '../src/domain/file-name';

const MB = 1024 * 1024;

describe('the stored name of an uploaded file', () => {
  it('comes back at once for a megabyte of dots between two letters, the regex worst case', () => {
    expect(sanitiseOriginalName(`a${'.'.repeat(MB)}a.png`, 'image/png')).toBe('a.png');
    expect(sanitiseOriginalName(`a${' .'.repeat(MB / 2)}a.pdf`, 'application/pdf')).toBe('a.pdf');
  });

  it('falls back to "file" for a name made only of dots', () => {
    expect(sanitiseOriginalName('.'.repeat(MB), 'image/jpeg')).toBe('file.jpg');
  });

  it('keeps only what follows the last folder separator of a very long path', () => {
    expect(sanitiseOriginalName(`${'x/..\\'.repeat(MB / 5)}scan.pdf`, 'application/pdf')).toBe('scan.pdf');
  });

  it('keeps a name of ordinary length as the client gave it, with the extension of the real type', () => {
    expect(sanitiseOriginalName('holiday photo.jpeg', 'image/jpeg')).toBe('holiday photo.jpg');
    expect(sanitiseOriginalName('...report. .html', 'image/png')).toBe('report.png');
  });

  it('bounds the stem to 100 characters without splitting a character in two', () => {
    const emoji = '😀'.repeat(200);
    const name = sanitiseOriginalName(`${emoji}.png`, 'image/png');
    expect(name).toBe(`${'😀'.repeat(100)}.png`);
    // the 255-unit cut falls inside the 28th emoji; what survives must still encode for Content-Disposition
    const cutInside = sanitiseOriginalName(`${' '.repeat(200)}${'😀'.repeat(40)}`, 'image/png');
    expect(cutInside).toBe(`${'😀'.repeat(27)}.png`);
    expect(() => encodeURIComponent(cutInside)).not.toThrow();
  });
});
