// The archives an interpreter needs before it runs the site's Python (mha's wheel, the site's modules
// and their bytecode): fetched and unzipped in JavaScript while Pyodide is still starting, then
// written into its file system in one go.
//
// Why not Pyodide's unpackArchive (or PyScript's "files", which calls it): that unzips in Python, on the
// main thread, after Python is up, 50-70 ms of the page's start on the 2-core test machine (imports of
// zipfile and shutil included). Here the unzipping happens while the page waits for Pyodide anyway,
// and what is left once Python is up is ~150 file writes (a few ms).
//
// Used by interpreter.mjs (the page) and worker.mjs (the cells' and the training's interpreters).
// pyscript.json's "archives" is the one list: paths relative to that file, unpacked into the working
// directory. No logic beyond reading a zip lives here.

const END_OF_DIRECTORY = 0x06054b50;  // a zip's last record: where its central directory is
const DIRECTORY_ENTRY = 0x02014b50;   // one file's entry in the central directory
const names = new TextDecoder();

// A fetch that fails on an HTTP error, naming the file and its status.
export const fetched = async (url) => {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${new URL(url).pathname} answered ${response.status}`);
  return response;
};

const inflated = (data) =>
  new Response(new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw")))
    .arrayBuffer().then((buffer) => new Uint8Array(buffer));

// [[path, bytes], ...] of a zip's files (directories are made when their files are written). Only what
// build.py writes is read: stored or deflated files, no zip64, no encryption; anything else is refused.
export async function unzip(buffer, label = "archive") {
  const bytes = new Uint8Array(buffer);
  const view = new DataView(buffer);
  let end = bytes.length - 22;  // the end record is 22 bytes, after an optional comment
  while (end >= 0 && view.getUint32(end, true) !== END_OF_DIRECTORY) end--;
  if (end < 0) throw new Error(`${label} is not a zip archive`);
  const count = view.getUint16(end + 10, true);
  let entry = view.getUint32(end + 16, true);
  const files = [];
  for (let i = 0; i < count; i++) {
    if (view.getUint32(entry, true) !== DIRECTORY_ENTRY) throw new Error(`${label}: a damaged zip directory`);
    const [flags, method] = [view.getUint16(entry + 8, true), view.getUint16(entry + 10, true)];
    const size = view.getUint32(entry + 20, true);  // compressed
    const [nameLength, extraLength, commentLength] = [28, 30, 32].map((at) => view.getUint16(entry + at, true));
    const local = view.getUint32(entry + 42, true);
    const path = names.decode(bytes.subarray(entry + 46, entry + 46 + nameLength));
    entry += 46 + nameLength + extraLength + commentLength;
    if (path.endsWith("/")) continue;
    if (path.startsWith("/") || path.split("/").includes("..")) throw new Error(`${label}: ${path} leaves its folder`);
    if ((flags & 1) || (method !== 0 && method !== 8)) {
      throw new Error(`${label}: ${path} is stored in a way this reader does not read`);
    }
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const data = bytes.subarray(start, start + size);
    files.push([path, method === 8 ? inflated(data) : Promise.resolve(data)]);
  }
  return Promise.all(files.map(async ([path, data]) => [path, await data]));
}

// Every archive pyscript.json names, fetched and unzipped: [[path, bytes], ...] in the list's order; with
// later, its "later" archives too (a worker's interpreter has them all from the start).
export async function fetchArchives(configURL, { later = false } = {}) {
  const config = await (await fetched(configURL)).json();
  const paths = [...(config.archives ?? []), ...(later ? Object.values(config.later ?? {}) : [])];
  const archives = await Promise.all(paths.map(async (path) => {
    const url = new URL(path, configURL).href;
    return unzip(await (await fetched(url)).arrayBuffer(), path);
  }));
  return archives.flat();
}

// One of pyscript.json's "later" archives, by name, fetched and unzipped: [[path, bytes], ...].
export async function fetchLater(configURL, name) {
  const config = await (await fetched(configURL)).json();
  const path = (config.later ?? {})[name];
  if (!path) throw new Error(`pyscript.json names no later archive ${name}`);
  return unzip(await (await fetched(new URL(path, configURL).href)).arrayBuffer(), path);
}

// The files, written under Pyodide's working directory (where the site's Python imports from).
export function writeFiles(pyodide, files) {
  const { FS } = pyodide;
  for (const [path, data] of files) {
    const slash = path.lastIndexOf("/");
    if (slash > 0) FS.mkdirTree(path.slice(0, slash));
    FS.writeFile(path, data);
  }
  // Python may have listed the working directory already: its finders for folders look again. (Not
  // importlib.invalidate_caches(): that imports importlib.metadata, a dozen modules, to tell it too.)
  pyodide.runPython(
    "import sys\nfrom importlib.machinery import FileFinder\n" +
    "for finder in sys.path_importer_cache.values():\n" +
    "    if isinstance(finder, FileFinder): finder.invalidate_caches()");
}
