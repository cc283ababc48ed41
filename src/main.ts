import { mount } from "svelte";
import { reloadIntoIsolation } from "./app/updates.svelte.ts";
import App from "./ui/App.svelte";
import "./ui/app.css";

reloadIntoIsolation();
mount(App, { target: document.getElementById("app")! });
