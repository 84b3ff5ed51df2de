export { TrashPage } from "./components/TrashPage";
