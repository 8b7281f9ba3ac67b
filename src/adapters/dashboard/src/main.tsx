import { render } from 'preact';
import './styles.css';
import { App } from './app.js';

render(<App />, document.getElementById('app')!);
