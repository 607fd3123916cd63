import { render } from 'preact';
import { App, preloadFirst } from './app.js';
import './styles.css';

// Ask for the list (or the plan) before the first render: the answer is on its way while the page draws.
preloadFirst();
render(<App />, document.getElementById('app')!);
