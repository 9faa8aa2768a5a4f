// Vite's `?raw` imports (the text of a file), used for the scenario traces.
declare module '*?raw' {
  const text: string;
  export default text;
}
