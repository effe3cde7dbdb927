import { fileURLToPath, URL } from 'node:url';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { defineConfig } from 'vite';

// The Go server (`timbre serve`) serves the built app and the API on the same
// origin. In development, Vite proxies the API to it.
const api = process.env.TIMBRE_API_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: {
    proxy: {
      '/api': api,
      '/v1': api,
      '/v2': api,
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    rolldownOptions: {
      output: {
        // Long-lived vendor chunks: app changes do not bust the framework cache.
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/ },
            // Loaded on demand by the player's waveform only.
            { name: 'wavesurfer', test: /node_modules[\\/]wavesurfer\.js[\\/]/, priority: 1 },
            { name: 'vendor', test: /node_modules[\\/](?!wavesurfer\.js[\\/])/ },
          ],
        },
      },
    },
  },
});
